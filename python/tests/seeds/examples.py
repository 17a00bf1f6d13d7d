"""Every Python code example of the seeds (../shared/seeds/), transcribed for tests/test_seeds.py.

Each record:
  seed        the seed file the example comes from
  id          a short id (seed number + what it shows)
  code        the example exactly as written in the seed: only line breaks and indentation are
              restored (the web pages flatten code onto one line, 001 indents with no-break
              spaces). Names and calls are the seed's, typos included. `import torch` and
              `from torch import ...` lines stay: the runner (seeds/run_example.py) makes
              `torch` an alias of ctorch in sys.modules.
  fragments   the smallest definitions of the names the example uses but defines elsewhere
              (run before the example); `defines` lists those names
  requires    ids of earlier examples of the same page whose code defines names this one uses
              (a notebook's earlier cells, the page's previous snippet); they run first, with
              their printing silenced
  devices     emulated GPUs the example needs (the test gives at least 2)
  mode        "script", or "cell" for a notebook cell: the value of a last expression is
              displayed as IPython does (its repr; <module.Class at 0x...> for plain objects)
  output      the printed output the seed shows, verbatim (None: the seed shows none)
  expect      the text checked here (whitespace runs compared as one space); "SEED" means
              `output`. $NDEV is replaced by the number of emulated devices, $CPU_COUNT by
              os.cpu_count(). None: not checked (random numbers, addresses)
  expect_re   a regular expression the whole output (whitespace-normalized) must match, for
              outputs that mix fixed text with random numbers or addresses
  seed_devices  the seed's output came from a machine with this many GPUs and differs with
              more: the test also runs the example with this many emulated devices and checks
              the seed's own `output` (or, with `seed_error`, that text in the error)
  after       assertions run after the example in its namespace: what the seed states in its
              comments or prose ("# x.get_device() == 0") rather than prints
  skip        why the example cannot run here (None: it runs)
  note        transcription choices and differences from the seed's output
"""

IMPORT_TORCH = "import torch\n"


def ex(seed, id, code, **kw):
    rec = dict(seed=seed, id=id, code=code, fragments="", defines=(), requires=(), devices=2, mode="script",
               output=None, expect=None, expect_re=None, seed_devices=None, seed_error=None, after="", skip=None,
               note="")
    unknown = set(kw) - set(rec)
    if unknown:
        raise TypeError(f"unknown fields {unknown}")
    rec.update(kw)
    return rec


S0 = "000_eaba6bb7a0eadb21.txt"   # jb51.net: PyTorch中的CUDA的操作方法 (flattened code, output inline)
S1 = "001_214eb40258351ade.txt"   # cfsdn: .to(device) 和 .cuda() 的区别 (numbered code listings)
S2 = "002_54c92019887bb1a5.txt"   # PyTorch's docs/source/notes/cuda.rst (CUDA semantics)
S3 = "003_f77f58092e00e184.txt"   # a Jupyter notebook (d2l: GPUs) dumped as text
S4 = "004_9f73f056c8f2be32.txt"   # the torch.cuda API page (Chinese translation): a table, no code

T = IMPORT_TORCH

EXAMPLES = [
    # ---- 000: PyTorch中的CUDA的操作方法 ------------------------------------------------------
    ex(S0, "000-pip-install",
       "pip3 install torch torchvision torchaudio --extra-index-url https://download.pytorch.org/whl/cu116\n",
       skip="shell command (pip install from download.pytorch.org, needs the network); not Python. ctorch "
            "installs with `cmake --install` or `pip install .` from the checkout"),
    ex(S0, "000-version", "print(torch.__version__)\n",
       fragments=T, defines=("torch",), output="1.12.1+cu116",
       expect_re=r"1\.13\.1\+ctorch\.\S+",
       note="the version differs by design: ctorch reports the PyTorch API it follows plus its own"),
    ex(S0, "000-is-available", "print(torch.cuda.is_available())\n",
       fragments=T, defines=("torch",), output="True", expect="SEED"),
    ex(S0, "000-default-device", 'print("default device: {}".format(torch.Tensor([4,5,6]).device))\n',
       fragments=T, defines=("torch",), output="default device: cpu", expect="SEED"),
    ex(S0, "000-cpu-count", 'print("available cpu devices: {}".format(torch.cuda.os.cpu_count()))\n',
       fragments=T, defines=("torch",), output="available cpu devices: 20",
       expect="available cpu devices: $CPU_COUNT",
       note="torch.cuda.os is the os module; the seed's machine had 20 logical cpus"),
    ex(S0, "000-device-count", 'print("available gpu devices: {}".format(torch.cuda.device_count()))\n',
       fragments=T, defines=("torch",), output="available gpu devices: 1",
       expect="available gpu devices: $NDEV", seed_devices=1),
    ex(S0, "000-device-name",
       'print("gpu device name: {}".format(torch.cuda.get_device_name(torch.device("cuda:0"))))\n',
       fragments=T, defines=("torch",), output="gpu device name: NVIDIA GeForce GTX 1080 Ti",
       expect="gpu device name: ctorch Virtual GPU (emulated)",
       note="an emulated device's name (CTORCH_EMULATED_CUDA=name=... sets another, with ' (emulated)')"),
    ex(S0, "000-device-cpu0",
       'device = torch.Tensor([1,2,3], device="cpu:0").device\n'
       'print("device type: {}".format(device))\n',
       fragments=T, defines=("torch",), output="device type: cpu", expect="SEED"),
    ex(S0, "000-torch-device-cpu0",
       'cpu1 = torch.device("cpu:0")\n'
       'print("cpu device: {}:{}".format(cpu1.type, cpu1.index))\n',
       fragments=T, defines=("torch",), output="cpu device: cpu:0", expect="SEED"),
    ex(S0, "000-torch-device-index",
       'gpu = torch.device(0)\n'
       'print("gpu device: {}:{}".format(gpu.type, gpu.index))\n',
       fragments=T, defines=("torch",), output="gpu device: cuda:0", expect="SEED"),
    ex(S0, "000-torch-device-cuda0",
       'gpu = torch.device("cuda:0")\n'
       'print("gpu device: {}:{}".format(gpu.type, gpu.index))\n',
       fragments=T, defines=("torch",), output="gpu device: cuda:0", expect="SEED"),
    ex(S0, "000-copy-to-gpu",
       "# 默認創(chuàng)建的tensor是在cpu上創(chuàng)建的\n"
       "cpu_tensor = torch.Tensor([[1,4,7],[3,6,9],[2,5,8]])\n"
       "print(cpu_tensor.device)\n"
       "# 通過to方法將cpu_tensor拷貝到gpu上\n"
       'gpu_tensor1 = cpu_tensor.to(torch.device("cuda:0"))\n'
       "print(gpu_tensor1.device)\n"
       "# 通過cuda方法將cpu_tensor拷貝到gpu上\n"
       'gpu_tensor2 = cpu_tensor.cuda(torch.device("cuda:0"))\n'
       "print(gpu_tensor2.device)\n"
       "# 將gpu_tensor2拷貝到cpu上\n"
       "gpu_tensor3 = cpu_tensor.copy_(gpu_tensor2)\n"
       "print(gpu_tensor3.device)\n"
       "print(gpu_tensor3)\n",
       fragments=T, defines=("torch",),
       output="cpu\ncuda:0\ncuda:0\ncpu\ntensor([[1., 4., 7.],\n[3., 6., 9.],\n[2., 5., 8.]])", expect="SEED",
       after="assert gpu_tensor3 is cpu_tensor  # copy_ returns self (the page's explanation)\n"),
    ex(S0, "000-copy-stub",
       "def copy_(self, src, non_blocking=False):\n"
       "    ......\n"
       "    return _te.Tensor(*(), **{})\n",
       skip="an excerpt of PyTorch's type stub quoted to explain copy_, not an example: `......` is a "
            "SyntaxError and `_te` is torch's internal module"),
    ex(S0, "000-create-on-gpu",
       'gpu_tensor1 = torch.tensor([[2,5,8],[1,4,7],[3,6,9]], device=torch.device("cuda:0"))\n'
       "print(gpu_tensor1.device)\n"
       "# 在gpu設(shè)備上創(chuàng)建隨機數(shù)tensor\n"
       'print(torch.rand((3,4), device=torch.device("cuda:0")))\n'
       "# 在gpu設(shè)備上創(chuàng)建0值tensor\n"
       'print(torch.zeros((2,5), device=torch.device("cuda:0")))\n',
       fragments=T, defines=("torch",),
       output="cuda:0\n"
              "tensor([[0.7061, 0.2161, 0.8219, 0.3354],\n[0.1697, 0.1730, 0.1400, 0.2825],\n"
              "[0.1771, 0.0473, 0.8411, 0.2318]], device='cuda:0')\n"
              "tensor([[0., 0., 0., 0., 0.],\n[0., 0., 0., 0., 0.]], device='cuda:0')",
       # fixed notation, or scientific when the values span more than 1000x (PyTorch's printing)
       expect_re=(r"cuda:0 tensor\(\[\[(V, ){3}V\], (\[(V, ){3}V\],? ?){2}\], "
                  r"device='cuda:0'\) tensor\(\[\[0\., 0\., 0\., 0\., 0\.\], \[0\., 0\., 0\., 0\., 0\.\]\], "
                  r"device='cuda:0'\)").replace("V", r"(0\.\d{4}|\d\.\d{4}e[-+]\d{2})"),
       note="the rand values are unseeded: their format is checked (either notation), the other lines exactly"),
    ex(S0, "000-streams-race",
       'cuda = torch.device("cuda")\n'
       "# 創(chuàng)建默認的stream,A就是使用的默認stream\n"
       "s = torch.cuda.Stream()\n"
       "A = torch.randn((1,10), device=cuda)\n"
       "for i in range(100):\n"
       "    # 在新的stream上對默認的stream上創(chuàng)建的tensor進行求和\n"
       "    with torch.cuda.stream(s):\n"
       "        # 存在的問題是:torch.sum()可能會在torch.randn()之前執(zhí)行\n"
       "        B = torch.sum(A)\n"
       "        print(B)\n",
       fragments=T, defines=("torch",),
       expect_re=r"tensor\(-?\d+\.\d{4}(e[-+]\d+)?, device='cuda:0'\)( tensor\(-?\d+\.\d{4}(e[-+]\d+)?, device='cuda:0'\)){99}",
       note="indentation restored with print(B) inside the with block (the flattened page does not say); "
            "100 sums printed (their format checked): the page's race is real on emulated devices too -- on a "
            "loaded machine the side stream's first sums can run before randn -- so the values are not "
            "compared here; test_stream_sanitizer_sees_the_seeds_race checks the race is reported"),
    ex(S0, "000-streams-synchronize",
       'cuda = torch.device("cuda")\n'
       "s = torch.cuda.Stream()\n"
       "A = torch.randn((1,10), device=cuda)\n"
       "default_stream = torch.cuda.current_stream()\n"
       'print("Default Stream: {}".format(default_stream))\n'
       "# 等待創(chuàng)建A的stream執(zhí)行完畢\n"
       "torch.cuda.Stream.synchronize(default_stream)\n"
       "for i in range(100):\n"
       "    # 在新的stream上對默認的stream上創(chuàng)建的tensor進行求和\n"
       "    with torch.cuda.stream(s):\n"
       '        print("current stream: {}".format(torch.cuda.current_stream()))\n'
       "        B = torch.sum(A)\n"
       "        print(B)\n",
       fragments=T, defines=("torch",),
       expect_re=r"Default Stream: <torch\.cuda\.Stream device=cuda:0 cuda_stream=0x0>"
                 r"( current stream: <torch\.cuda\.Stream device=cuda:0 cuda_stream=0x[0-9a-f]+> "
                 r"tensor\(-?\d+\.\d{4}, device='cuda:0'\)){100}",
       after="assert torch.cuda.current_stream() == default_stream\n",
       note="the seed shows no output; the streams' reprs are checked against PyTorch's format"),
    ex(S0, "000-pin-memory",
       "from torch.utils.data._utils.pin_memory import pin_memory\n"
       "x = torch.Tensor([[1,2,4], [5, 7, 9], [3, 7, 10]])\n"
       "# 通過pin_memory()方法將x復(fù)制到固定緩沖區(qū)\n"
       "y = pin_memory(x)\n"
       "# 在tensor上直接調(diào)用pin_memory()方法將tensor復(fù)制到固定緩沖區(qū)\n"
       "z = x.pin_memory()\n"
       "# id()方法返回tensor的內(nèi)存地址,pin_memory()返回tensor對象的拷貝,因此內(nèi)存地址是不同的\n"
       'print("id: {}".format(id(x)))\n'
       'print("id: {}".format(id(y)))\n'
       'print("id: {}".format(id(z)))\n'
       "# 當(dāng)tensor放入固定緩沖區(qū)后,就可以異步將數(shù)據(jù)復(fù)制到gpu設(shè)備上了\n"
       "a = z.cuda(non_blocking=True)\n"
       "print(a)\n"
       'print("is_pinned: {}/{}".format(x.is_pinned(), z.is_pinned()))\n',
       fragments=T, defines=("torch",),
       output="id: 1605289350472\nid: 1605969660408\nid: 1605969660248\n"
              "tensor([[ 1., 2., 4.],\n[ 5., 7., 9.],\n[ 3., 7., 10.]], device='cuda:0')\nis_pinned: False/True",
       expect_re=r"id: (\d+) id: (?!\1)(\d+) id: (?!\1|\2)\d+ "
                 r"tensor\(\[\[ 1\., 2\., 4\.\], \[ 5\., 7\., 9\.\], \[ 3\., 7\., 10\.\]\], device='cuda:0'\) "
                 r"is_pinned: False/True",
       after="assert y.is_pinned() and y is not x\n",
       note="ids are addresses: checked to be three different numbers; the rest exactly"),
    ex(S0, "000-device-agnostic",
       'device = torch.device("cpu")\n'
       "if torch.cuda.is_available():\n"
       '    device = torch.device("cuda")\n'
       "a = torch.tensor([1,2,3], device=device)\n"
       "print(a)\n",
       fragments=T, defines=("torch",), output="tensor([1, 2, 3], device='cuda:0')", expect="SEED"),
    ex(S0, "000-linear-regression",
       "class LinearRegression(torch.nn.Module):\n"
       "    def __init__(self):\n"
       "        super(LinearRegression, self).__init__()\n"
       "        self.linear = torch.nn.Linear(1, 1)\n"
       "\n"
       "    def forward(self, x):\n"
       "        return self.linear(x)\n"
       "\n"
       "regression = LinearRegression().to(device=device)\n"
       "for param in regression.parameters():\n"
       "    print(param)\n",
       requires=("000-device-agnostic",), defines=("device",),
       expect_re=r"Parameter containing: tensor\(\[\[-?\d\.\d{4}\]\], device='cuda:0', requires_grad=True\) "
                 r"Parameter containing: tensor\(\[-?\d\.\d{4}\], device='cuda:0', requires_grad=True\)",
       note="the page says (no output shown) that every param is a tensor on device='cuda:0': checked; "
            "the values are random"),

    # ---- 001: .to(device) 和 .cuda() 的区别 ----------------------------------------------------
    ex(S1, "001-to-device",
       'device = torch.device( "cuda:0" if torch.cuda.is_available() else "cpu" ) # 单GPU或者CPU\n'
       "model.to(device)\n"
       "#如果是多GPU\n"
       "if torch.cuda.device_count() > 1 :\n"
       "   model = nn.DataParallel(model,device_ids = [ 0 , 1 , 2 ])\n"
       "model.to(device)\n",
       fragments=T + "from torch import nn\nmodel = nn.Linear(4, 2)\n", defines=("torch", "nn", "model"),
       devices=3,
       after="assert isinstance(model, nn.DataParallel) and model.device_ids == [0, 1, 2]\n"
             "assert model(torch.ones(6, 4, device=device)).shape == (6, 2)\n",
       note="device_ids=[0, 1, 2] needs three GPUs (PyTorch raises on two)"),
    ex(S1, "001-cuda-visible-devices",
       "#指定某个GPU\n"
       "os.environ[ 'CUDA_VISIBLE_DEVICE' ] = '1'\n"
       "model.cuda()\n"
       "#如果是多GPU\n"
       "os.environment[ 'CUDA_VISIBLE_DEVICES' ] = '0,1,2,3'\n"
       "device_ids = [ 0 , 1 , 2 , 3 ]\n"
       "net  = torch.nn.Dataparallel(net, device_ids = device_ids)\n"
       "net  = torch.nn.Dataparallel(net) # 默认使用所有的device_ids\n"
       "net = net.cuda()\n",
       fragments=T + "import os\nmodel = torch.nn.Linear(4, 2)\nnet = torch.nn.Linear(4, 2)\n",
       defines=("torch", "os", "model", "net"), devices=4,
       skip="the snippet's own typos fail in any Python with any torch: `os.environment` (AttributeError: "
            "module 'os' has no attribute 'environment'), `torch.nn.Dataparallel` (no such class; it is "
            "DataParallel); `CUDA_VISIBLE_DEVICE` (no S) is no variable CUDA reads either. The spelled-right "
            "calls run in 001-to-device and 002-*; CUDA_VISIBLE_DEVICES selects emulated devices too "
            "(README)"),
    ex(S1, "001-dataparallel-source",
       "class DataParallel(Module):\n"
       "    def __init__( self , module, device_ids = None , output_device = None , dim = 0 ):\n"
       "        super (DataParallel, self ).__init__()\n"
       "\n"
       "        if not torch.cuda.is_available():\n"
       "            self .module = module\n"
       "            self .device_ids = []\n"
       "            return\n"
       "\n"
       "        if device_ids is None :\n"
       "            device_ids = list ( range (torch.cuda.device_count()))\n"
       "        if output_device is None :\n"
       "            output_device = device_ids[ 0 ]\n",
       fragments=T + "from torch.nn import Module\n", defines=("torch", "Module"),
       after="dp = DataParallel(torch.nn.Linear(1, 1))  # the excerpt (PyTorch's own __init__, cut short) runs\n",
       note="an excerpt of PyTorch's DataParallel.__init__, cut off by the page; it is valid Python and "
            "runs as a Module subclass"),
    ex(S1, "001-device-agnostic",
       "# 开始脚本,创建一个张量\n"
       'device = torch.device( "cuda:0" if torch.cuda.is_available() else "cpu" )\n'
       "...\n"
       "# 但是无论你获得一个新的Tensor或者Module\n"
       "# 如果他们已经在目标设备上则不会执行复制操作\n"
       "input = data.to(device)\n"
       "model = MyModule(...).to(device)\n",
       fragments=T + "from torch import nn\n"
                     "data = torch.ones(2, 3)\n"
                     "class MyModule(nn.Module):\n"
                     "    def __init__(self, *args):\n"
                     "        super().__init__()\n"
                     "        self.fc = nn.Linear(3, 1)\n",
       defines=("torch", "data", "MyModule"),
       after="assert input.device == device and input.is_cuda\n"
             "assert all(p.device == device for p in model.parameters())\n"
             "assert input.to(device) is input  # already there: no copy, self returned (the page's comment)\n"
             "assert model.to(device) is model\n",
       note="`...` is the page's elision; it is valid Python (Ellipsis), also as MyModule's argument"),

    # ---- 002: CUDA semantics (PyTorch's notes/cuda.rst) ---------------------------------------
    ex(S2, "002-cross-gpu",
       "x = torch.cuda.FloatTensor(1)\n"
       "# x.get_device() == 0\n"
       "y = torch.FloatTensor(1).cuda()\n"
       "# y.get_device() == 0\n"
       "\n"
       "with torch.cuda.device(1):\n"
       "    # allocates a tensor on GPU 1\n"
       "    a = torch.cuda.FloatTensor(1)\n"
       "\n"
       "    # transfers a tensor from CPU to GPU 1\n"
       "    b = torch.FloatTensor(1).cuda()\n"
       "    # a.get_device() == b.get_device() == 1\n"
       "\n"
       "    c = a + b\n"
       "    # c.get_device() == 1\n"
       "\n"
       "    z = x + y\n"
       "    # z.get_device() == 0\n"
       "\n"
       "    # even within a context, you can give a GPU id to the .cuda call\n"
       "    d = torch.randn(2).cuda(2)\n"
       "    # d.get_device() == 2\n",
       fragments=T, defines=("torch",), devices=3,
       after="assert x.get_device() == 0\nassert y.get_device() == 0\n"
             "assert a.get_device() == b.get_device() == 1\nassert c.get_device() == 1\n"
             "assert z.get_device() == 0\nassert d.get_device() == 2\n",
       note="`.cuda(2)` needs a third GPU; the comments' get_device() values are asserted"),
    ex(S2, "002-argparse",
       "import argparse\n"
       "import torch\n"
       "\n"
       "parser = argparse.ArgumentParser(description='PyTorch Example')\n"
       "parser.add_argument('--disable-cuda', action='store_true',\n"
       "                    help='Disable CUDA')\n"
       "args = parser.parse_args()\n"
       "args.cuda = not args.disable_cuda and torch.cuda.is_available()\n",
       after="assert args.cuda is True\n"),
    ex(S2, "002-args-cuda",
       "x = torch.Tensor(8, 42)\n"
       "net = Network()\n"
       "if args.cuda:\n"
       "    x = x.cuda()\n"
       "    net.cuda()\n",
       requires=("002-argparse",),
       fragments="class Network(torch.nn.Module):\n"
                 "    def __init__(self):\n"
                 "        super().__init__()\n"
                 "        self.fc = torch.nn.Linear(42, 2)\n"
                 "\n"
                 "    def forward(self, x):\n"
                 "        return self.fc(x)\n",
       defines=("torch", "args", "Network"),
       after="assert x.is_cuda and x.shape == (8, 42)\n"
             "assert all(p.is_cuda for p in net.parameters())\n"
             "assert net(x).shape == (8, 2)\n",
       note="torch and args come from the page's previous snippet (002-argparse)"),
    ex(S2, "002-default-type",
       "dtype = torch.cuda.FloatTensor\n"
       "for i, x in enumerate(train_loader):\n"
       "    x = Variable(x.type(dtype))\n",
       fragments=T + "from torch.autograd import Variable\n"
                     "train_loader = torch.utils.data.DataLoader(torch.arange(12.).reshape(6, 2), batch_size=2)\n",
       defines=("torch", "Variable", "train_loader"),
       after="assert i == 2 and isinstance(x, torch.cuda.FloatTensor) and x.device == torch.device('cuda:0')\n"
             "assert x.tolist() == [[8.0, 9.0], [10.0, 11.0]]\n"),
    ex(S2, "002-device-context",
       'print("Outside device is 0") # On device 0 (default in most scenarios)\n'
       "with torch.cuda.device(1):\n"
       '    print("Inside device is 1") # On device 1\n'
       'print("Outside device is still 0") # On device 0\n',
       fragments=T, defines=("torch",), expect="Outside device is 0\nInside device is 1\nOutside device is still 0",
       after="assert torch.cuda.current_device() == 0\n"
             "with torch.cuda.device(1):\n"
             "    assert torch.cuda.current_device() == 1 and torch.ones(1, device='cuda').get_device() == 1\n",
       note="no output is shown; the printed literals and the comments' devices are checked"),
    ex(S2, "002-tensor-new",
       "x_cpu = torch.FloatTensor(1)\n"
       "x_gpu = torch.cuda.FloatTensor(1)\n"
       "x_cpu_long = torch.LongTensor(1)\n"
       "\n"
       "y_cpu = x_cpu.new(8, 10, 10).fill_(0.3)\n"
       "y_gpu = x_gpu.new(x_gpu.size()).fill_(-5)\n"
       "y_cpu_long = x_cpu_long.new([[1, 2, 3]])\n",
       fragments=T, defines=("torch",),
       after="assert y_cpu.shape == (8, 10, 10) and y_cpu.dtype == torch.float32 and not y_cpu.is_cuda\n"
             "assert bool((y_cpu == 0.3).all())\n"
             "assert y_gpu.shape == (1,) and y_gpu.device == x_gpu.device and y_gpu.tolist() == [-5.0]\n"
             "assert y_cpu_long.dtype == torch.int64 and y_cpu_long.tolist() == [[1, 2, 3]]\n"),
    ex(S2, "002-ones-zeros-like",
       "x_cpu = torch.FloatTensor(1)\n"
       "x_gpu = torch.cuda.FloatTensor(1)\n"
       "\n"
       "y_cpu = torch.ones_like(x_cpu)\n"
       "y_gpu = torch.zeros_like(x_gpu)\n",
       fragments=T, defines=("torch",),
       after="assert y_cpu.tolist() == [1.0] and not y_cpu.is_cuda\n"
             "assert y_gpu.tolist() == [0.0] and y_gpu.device == x_gpu.device and y_gpu.dtype == torch.float32\n"),

    # ---- 003: a Jupyter notebook (d2l: GPUs) ---------------------------------------------------
    ex(S3, "003-nvidia-smi", "! nvidia-smi\n",
       skip="IPython shell escape running nvidia-smi (needs an NVIDIA driver); ctorch's counterpart for "
            "emulated devices is tools/ctorch-smi"),
    ex(S3, "003-in1-cpu",
       "#深度学习框架都是默认在CPU上做运算，需要去指定在GPU上做运算\n"
       "import torch\n"
       "from torch import nn\n"
       "#cpu\n"
       "torch.device('cpu')\n",
       mode="cell", output="device(type='cpu')", expect="SEED"),
    ex(S3, "003-in2-cuda-device",
       "#GPU,默认是0号GPU\n"
       "torch.cuda.device('cuda')\n",
       mode="cell", requires=("003-in1-cpu",), defines=("torch",),
       output="<torch.cuda.device at 0x23188e0aeb0>",
       expect_re=r"<c?torch\.cuda\.device at 0x[0-9a-f]+>",
       note="an address; the class is ctorch.cuda.device under the alias"),
    ex(S3, "003-in4-cuda-device-1",
       "#查询第1号gpu\n"
       "torch.cuda.device('cuda:1')\n",
       mode="cell", requires=("003-in1-cpu",), defines=("torch",),
       output="<torch.cuda.device at 0x23188e2dee0>",
       expect_re=r"<c?torch\.cuda\.device at 0x[0-9a-f]+>",
       after="assert torch.cuda.device('cuda:1').idx == 1\n"),
    ex(S3, "003-in5-device-count",
       "#查询可用GPU的数量\n"
       "torch.cuda.device_count()\n",
       mode="cell", requires=("003-in1-cpu",), defines=("torch",),
       output="1", expect="$NDEV", seed_devices=1),
    ex(S3, "003-in7-try-gpu",
       "#这两个函数允许我们在请求的GPU不存在的情况下运行代码\n"
       "def try_gpu(i=0):\n"
       "    if torch.cuda.device_count()>=i+1:\n"
       "        return torch.device(f'cuda:{i}')\n"
       "    return torch.device('cpu')\n",
       mode="cell", requires=("003-in1-cpu",), defines=("torch",)),
    ex(S3, "003-in8-try-all-gpus",
       "#返回所有可用的GPU\n"
       "def try_all_gpus():  \n"
       '    """返回所有可用的GPU，如果没有GPU，则返回[cpu(),]。"""\n'
       "    devices = [\n"
       "        torch.device(f'cuda:{i}') for i in range(torch.cuda.device_count())]\n"
       "    return devices if devices else [torch.device('cpu')]\n"
       "\n"
       "try_gpu(), try_gpu(10), try_all_gpus()\n",
       mode="cell", requires=("003-in1-cpu", "003-in7-try-gpu"), defines=("torch", "try_gpu"),
       output="(device(type='cuda', index=0),\n device(type='cpu'),\n [device(type='cuda', index=0)])",
       expect="(device(type='cuda', index=0), device(type='cpu'), "
              "[device(type='cuda', index=0), device(type='cuda', index=1)])",
       seed_devices=1, note="the seed's machine had one GPU: its output is checked with one emulated device"),
    ex(S3, "003-in9-tensor-device",
       "#查询张量所在的设备\n"
       "#默认是在cpu的内存上\n"
       "x=torch.tensor([0,1,2,3])\n"
       "x.device\n",
       mode="cell", requires=("003-in1-cpu",), defines=("torch",), output="device(type='cpu')", expect="SEED"),
    ex(S3, "003-in11-ones-on-gpu",
       "#创建的时候可以放在GPU上\n"
       "x=torch.ones(2,3,device=try_gpu())\n"
       "x.device\n",
       mode="cell", requires=("003-in1-cpu", "003-in7-try-gpu"), defines=("torch", "try_gpu"),
       output="device(type='cuda', index=0)", expect="SEED"),
    ex(S3, "003-in12-cuda-1",
       "#要计算x+y,我们需要决定在哪里执行这个操作\n"
       "#默认是cpu上，如果我们要计算，我们需要确定X和Y在同一个设备上，同一个CPU或者同一个GPU\n"
       "#这样就把x放到了1号GPU\n"
       "#如果不这样想的话，可能创建网络的时候所有层没有在同一个GPU之上，那就需要来回挪数据，那网络的性能就会受到影响\n"
       "z=x.cuda(1)\n",
       mode="cell", requires=("003-in1-cpu", "003-in7-try-gpu", "003-in11-ones-on-gpu"),
       defines=("torch", "try_gpu", "x"),
       output="RuntimeError: CUDA error: invalid device ordinal", seed_devices=1,
       seed_error="RuntimeError: CUDA error: invalid device ordinal",
       after="assert z.device == torch.device('cuda:1') and z.tolist() == x.tolist()\n",
       note="with two devices the copy succeeds; with one (the seed's machine) the seed's error is checked"),
    ex(S3, "003-in15-net-on-gpu",
       "#神经网络与GPU\n"
       "#通常在cpu上把权重初始化好\n"
       "net=nn.Sequential(nn.Linear(3,1))\n"
       "#手动copy一份放到GPU\n"
       "net=net.to(device=try_gpu())\n"
       "\n"
       "#0号GPU做运算\n"
       "net(x)\n",
       mode="cell", requires=("003-in1-cpu", "003-in7-try-gpu", "003-in11-ones-on-gpu"),
       defines=("torch", "nn", "try_gpu", "x"),
       output="tensor([[-0.0249],\n        [-0.0249]], device='cuda:0', grad_fn=<AddmmBackward>)",
       expect_re=r"tensor\(\[\[(-?\d\.\d{4})\], \[\1\]\], device='cuda:0', grad_fn=<AddmmBackward0>\)",
       note="random weights: the two equal rows, the device and grad_fn are checked (PyTorch 1.13 names it "
            "AddmmBackward0; the seed's older PyTorch printed AddmmBackward)"),
    ex(S3, "003-in16-weight-device",
       "#确认模型参数存储在同一个GPU\n"
       "net[0].weight.data.device\n",
       mode="cell", requires=("003-in1-cpu", "003-in7-try-gpu", "003-in11-ones-on-gpu", "003-in15-net-on-gpu"),
       defines=("torch", "nn", "try_gpu", "x", "net"),
       output="device(type='cuda', index=0)", expect="SEED"),

    # ---- 004: the torch.cuda API page --------------------------------------------------------
    # It has no code blocks; its one piece of code is inline prose. Its table of entries is
    # checked name by name in test_seeds.py (test_api_page_entries_exist).
    ex(S4, "004-is-available", "torch.cuda.is_available()\n",
       mode="cell", fragments=T, defines=("torch",), expect="True",
       note="inline in the page's prose (可以使用 torch.cuda.is_available() 来确定系统是否支持 CUDA)"),
]

# The torch.cuda API page's table, entry by entry (names as the page writes them).
API_PAGE_ENTRIES = [
    "StreamContext", "can_device_access_peer", "current_blas_handle", "current_device", "current_stream",
    "default_stream", "device", "device_count", "device_of", "get_arch_list", "get_device_capability",
    "get_device_name", "get_device_properties", "get_gencode_flags", "get_sync_debug_mode", "init",
    "ipc_collect", "is_available", "is_initialized", "memory_usage", "set_device", "set_stream",
    "set_sync_debug_mode", "stream", "synchronize", "utilization", "temperature", "power_draw", "clock_rate",
    "OutOfMemoryError",
    "get_rng_state", "get_rng_state_all", "set_rng_state", "set_rng_state_all", "manual_seed", "manual_seed_all",
    "seed", "seed_all", "initial_seed",
    "comm.broadcast", "comm.broadcast_coalesced", "comm.reduce_add", "comm.scatter", "comm.gather",
    "Stream", "ExternalStream", "Event",
    "is_current_stream_capturing", "graph_pool_handle", "CUDAGraph", "graph", "make_graphed_callables",
    "empty_cache", "list_gpu_processes", "mem_get_info", "memory_stats", "memory_summary", "memory_snapshot",
    "memory_allocated", "max_memory_allocated", "reset_max_memory_allocated", "memory_reserved",
    "max_memory_reserved", "set_per_process_memory_fraction", "memory_cached", "max_memory_cached",
    "reset_max_memory_cached", "reset_peak_memory_stats", "caching_allocator_alloc", "caching_allocator_delete",
    "get_allocator_backend", "CUDAPluggableAllocator", "change_current_allocator",
    "nvtx.mark", "nvtx.range_push", "nvtx.range_pop",
    "jiterator._create_jit_fn", "jiterator._create_multi_output_jit_fn",
]

BY_ID = {e["id"]: e for e in EXAMPLES}
assert len(BY_ID) == len(EXAMPLES), "duplicate example ids"
