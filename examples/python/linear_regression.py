"""The seeds' LinearRegression (one nn.Linear(1, 1)) trained on y = 2x + 1 + noise.

Device-agnostic as in the seed: cuda when available (CTORCH_EMULATED_CUDA=2 gives two emulated
GPUs), else cpu. Mini-batches from a shuffled DataLoader; the mean loss of each epoch is printed.

    PYTHONPATH=build/python CTORCH_EMULATED_CUDA=2 /usr/bin/python3 examples/python/linear_regression.py
    ... linear_regression.py --cpu          # on the cpu
    ... linear_regression.py --reference    # the same script on PyTorch (python3-torch), for comparison
"""
import argparse
import sys
import time

if "--reference" in sys.argv:
    import torch
else:
    import ctorch as torch
DataLoader, TensorDataset = torch.utils.data.DataLoader, torch.utils.data.TensorDataset


class LinearRegression(torch.nn.Module):
    def __init__(self):
        super(LinearRegression, self).__init__()
        self.linear = torch.nn.Linear(1, 1)

    def forward(self, x):
        return self.linear(x)


def main():
    parser = argparse.ArgumentParser(description="LinearRegression on synthetic data")
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--cpu", action="store_true", help="train on the cpu even when cuda is available")
    parser.add_argument("--reference", action="store_true", help="run on PyTorch instead of ctorch")
    args = parser.parse_args()

    device = torch.device("cpu")
    if torch.cuda.is_available() and not args.cpu:
        device = torch.device("cuda")
    print(f"{torch.__name__} {torch.__version__} on {device}"
          + (f" ({torch.cuda.get_device_name(device)}, {torch.cuda.device_count()} visible)"
             if device.type == "cuda" else ""))

    torch.manual_seed(0)
    x = torch.linspace(-1, 1, 256).unsqueeze(1)
    y = 2 * x + 1 + 0.1 * torch.randn(256, 1)
    loader = DataLoader(TensorDataset(x, y), batch_size=args.batch_size, shuffle=True)

    regression = LinearRegression().to(device=device)
    for param in regression.parameters():
        print(param)
    optimizer = torch.optim.SGD(regression.parameters(), lr=args.lr)
    criterion = torch.nn.MSELoss()

    start = time.monotonic()
    for epoch in range(1, args.epochs + 1):
        total, count = 0.0, 0
        for xb, yb in loader:
            xb, yb = xb.to(device), yb.to(device)
            optimizer.zero_grad()
            loss = criterion(regression(xb), yb)
            loss.backward()
            optimizer.step()
            total += loss.item() * xb.size(0)
            count += xb.size(0)
        print(f"epoch {epoch:3d}  loss {total / count:.6f}")
    w = regression.linear.weight.item()
    b = regression.linear.bias.item()
    print(f"weight {w:.4f}  bias {b:.4f}  (data: y = 2x + 1 + noise)  device {regression.linear.weight.device}  "
          f"{time.monotonic() - start:.2f} s")


if __name__ == "__main__":
    main()
