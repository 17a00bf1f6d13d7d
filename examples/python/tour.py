"""The seeds' walkthrough in Python (PyTorch中的CUDA的操作方法 and the CUDA-semantics page), run
with `import ctorch as torch` on the best device: real GPUs, emulated ones (CTORCH_EMULATED_CUDA=2),
or the cpu alone.

    PYTHONPATH=build/python CTORCH_EMULATED_CUDA=2 python3 examples/python/tour.py
"""
import ctorch as torch

print("torch API version:", torch.__version__)
print("cuda available:", torch.cuda.is_available())
print("default device: {}".format(torch.Tensor([4, 5, 6]).device))
print("available cpu devices: {}".format(torch.cuda.os.cpu_count()))
print("available gpu devices: {}".format(torch.cuda.device_count()))
device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
if device.type == "cuda":
    print("gpu device name: {}".format(torch.cuda.get_device_name(device)))
gpu = torch.device(0)
print("gpu device: {}:{}".format(gpu.type, gpu.index))

# Tensors between cpu and gpu: to, cuda, copy_
cpu_tensor = torch.Tensor([[1, 4, 7], [3, 6, 9], [2, 5, 8]])
gpu_tensor1 = cpu_tensor.to(device)
print(gpu_tensor1.device)
gpu_tensor2 = cpu_tensor.cuda(device) if device.type == "cuda" else cpu_tensor
gpu_tensor3 = cpu_tensor.copy_(gpu_tensor2)
print(gpu_tensor3.device)
print(gpu_tensor3)
torch.manual_seed(0)
print(torch.rand((3, 4), device=device))
print(torch.zeros((2, 5), device=device))

if torch.cuda.device_count() >= 2:
    # The CUDA-semantics page: the current device, and work placed where its tensors live.
    x = torch.cuda.FloatTensor(1)
    with torch.cuda.device(1):
        a = torch.cuda.FloatTensor(1)
        b = torch.FloatTensor(1).cuda()
        c = a + b
        print("a, b, c on devices", a.get_device(), b.get_device(), c.get_device())
    try:
        x + c
    except RuntimeError as e:
        print("cross-device add:", str(e).splitlines()[0])

if device.type == "cuda":
    # Streams: work on a side stream, ordered after the default stream's.
    s = torch.cuda.Stream()
    A = torch.randn((1, 10), device=device)
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        print("current stream: {}".format(torch.cuda.current_stream()))
        B = torch.sum(A)
    torch.cuda.current_stream().wait_stream(s)
    print(B)

    # Pinned memory and an asynchronous copy.
    x = torch.Tensor([[1, 2, 4], [5, 7, 9], [3, 7, 10]])
    z = x.pin_memory()
    a = z.cuda(non_blocking=True)
    print(a)
    print("is_pinned: {}/{}".format(x.is_pinned(), z.is_pinned()))
    print("memory allocated: {} bytes, reserved: {} bytes".format(torch.cuda.memory_allocated(),
                                                                   torch.cuda.memory_reserved()))


# A model moved to the device and trained there.
class LinearRegression(torch.nn.Module):
    def __init__(self):
        super(LinearRegression, self).__init__()
        self.linear = torch.nn.Linear(1, 1)

    def forward(self, x):
        return self.linear(x)


torch.manual_seed(0)
regression = LinearRegression().to(device=device)
for param in regression.parameters():
    print(param)
xs = torch.linspace(-1, 1, 64, device=device).unsqueeze(1)
ys = 3 * xs + 0.5
opt = torch.optim.SGD(regression.parameters(), lr=0.5)
for epoch in range(30):
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(regression(xs), ys)
    loss.backward()
    opt.step()
print("after 30 steps: loss {:.6f}, weight {:.4f}, bias {:.4f}".format(
    loss.item(), regression.linear.weight.item(), regression.linear.bias.item()))
