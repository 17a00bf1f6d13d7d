"""An MLP classifier on synthetic MNIST-like data, data-parallel over every visible GPU.

28x28 single-channel "digits" of 10 classes: each class is a fixed random stroke pattern, each
sample that pattern shifted by up to two pixels, scaled, with noise. A Python Dataset feeds a
DataLoader(..., pin_memory=True); batches go to the GPU with non_blocking copies; the model is
wrapped in nn.DataParallel when more than one GPU is visible (each replica's Python forward runs
on its own thread with its device current); SGD with momentum. Loss and accuracy are printed per
epoch, with the test accuracy.

    PYTHONPATH=build/python CTORCH_EMULATED_CUDA=2 /usr/bin/python3 examples/python/mnist_like.py
    ... mnist_like.py --cpu                 # on the cpu
    ... mnist_like.py --reference --cpu     # the same script on PyTorch (python3-torch), for comparison
"""
import argparse
import sys
import time

if "--reference" in sys.argv:
    import torch
else:
    import ctorch as torch
nn = torch.nn
F = torch.nn.functional
Dataset, DataLoader = torch.utils.data.Dataset, torch.utils.data.DataLoader


class SyntheticMNIST(Dataset):
    """MNIST-shaped samples: (image float32 [1, 28, 28] in [0, 1], label int) made from one seed."""

    def __init__(self, size, seed, templates):
        g = torch.Generator()
        g.manual_seed(seed)
        self.labels = torch.randint(0, 10, (size,), generator=g)
        shifts = torch.randint(-2, 3, (size, 2), generator=g).tolist()
        scale = 0.6 + 0.4 * torch.rand(size, generator=g)
        noise = 0.35 * torch.randn(size, 28, 28, generator=g)
        images = templates[self.labels] * scale.view(size, 1, 1) + noise
        # shift each image by (dy, dx): rows and columns roll around the 28x28 frame
        rows, cols = torch.arange(28), torch.arange(28)
        out = []
        for i, (dy, dx) in enumerate(shifts):
            img = images[i].index_select(0, (rows - dy) % 28).index_select(1, (cols - dx) % 28)
            out.append(img)
        self.images = torch.stack(out).clamp(0, 1).unsqueeze(1)

    def __len__(self):
        return self.labels.size(0)

    def __getitem__(self, index):
        return self.images[index], int(self.labels[index])


def make_templates(seed):
    """Ten 28x28 patterns of random strokes (one per class)."""
    g = torch.Generator()
    g.manual_seed(seed)
    templates = torch.zeros(10, 28, 28)
    for c in range(10):
        for _ in range(4):  # four strokes: horizontal or vertical bars of random place and length
            r, s, n = torch.randint(4, 24, (3,), generator=g).tolist()
            if torch.rand(1, generator=g).item() < 0.5:
                templates[c, r, min(s, 28 - n // 2 - 1):min(28, s + n // 2)] = 1.0
            else:
                templates[c, min(s, 28 - n // 2 - 1):min(28, s + n // 2), r] = 1.0
    return templates


class MLP(nn.Module):
    def __init__(self, hidden=256):
        super().__init__()
        self.flatten = nn.Flatten()
        self.fc1 = nn.Linear(28 * 28, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.fc3 = nn.Linear(hidden, 10)

    def forward(self, x):
        x = self.flatten(x)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


def evaluate(model, loader, device):
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for images, labels in loader:
            images = images.to(device, non_blocking=True)
            labels = labels.to(device, non_blocking=True)
            correct += (model(images).argmax(1) == labels).sum().item()
            total += labels.size(0)
    model.train()
    return correct / total


def main():
    parser = argparse.ArgumentParser(description="MLP on synthetic MNIST-like data with DataParallel")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--train-size", type=int, default=2048)
    parser.add_argument("--test-size", type=int, default=512)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--workers", type=int, default=0, help="DataLoader worker threads")
    parser.add_argument("--cpu", action="store_true", help="train on the cpu even when cuda is available")
    parser.add_argument("--reference", action="store_true", help="run on PyTorch instead of ctorch")
    args = parser.parse_args()

    use_cuda = torch.cuda.is_available() and not args.cpu
    device = torch.device("cuda:0" if use_cuda else "cpu")
    ngpu = torch.cuda.device_count() if use_cuda else 0
    print(f"{torch.__name__} {torch.__version__}: device {device}, {ngpu} visible GPU(s)"
          + (f" ({torch.cuda.get_device_name(0)})" if ngpu else ""))

    torch.manual_seed(0)
    templates = make_templates(1)
    train_set = SyntheticMNIST(args.train_size, 2, templates)
    test_set = SyntheticMNIST(args.test_size, 3, templates)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True, num_workers=args.workers,
                              pin_memory=use_cuda, drop_last=True)
    test_loader = DataLoader(test_set, batch_size=256, pin_memory=use_cuda)

    model = MLP()
    if ngpu > 1:
        model = nn.DataParallel(model)  # every visible GPU: device_ids = [0, 1, ...]
        print(f"nn.DataParallel over device_ids {model.device_ids}, output on cuda:{model.output_device}")
    model.to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    criterion = nn.CrossEntropyLoss()

    start = time.monotonic()
    for epoch in range(1, args.epochs + 1):
        t0 = time.monotonic()
        loss_sum, correct, seen = 0.0, 0, 0
        for images, labels in train_loader:
            if epoch == 1 and seen == 0 and use_cuda:
                assert images.is_pinned(), "DataLoader(pin_memory=True) gives pinned batches"
            images = images.to(device, non_blocking=True)
            labels = labels.to(device, non_blocking=True)
            optimizer.zero_grad()
            output = model(images)
            loss = criterion(output, labels)
            loss.backward()
            optimizer.step()
            loss_sum += loss.item() * labels.size(0)
            correct += (output.argmax(1) == labels).sum().item()
            seen += labels.size(0)
        test_acc = evaluate(model, test_loader, device)
        print(f"epoch {epoch}  loss {loss_sum / seen:.4f}  train accuracy {correct / seen:.4f}  "
              f"test accuracy {test_acc:.4f}  ({time.monotonic() - t0:.1f} s)")
    if use_cuda:
        peaks = ", ".join(f"cuda:{i} {torch.cuda.max_memory_allocated(i) / 2**20:.1f} MiB" for i in range(ngpu))
        print(f"peak memory allocated: {peaks}")
    print(f"trained in {time.monotonic() - start:.1f} s")


if __name__ == "__main__":
    main()
