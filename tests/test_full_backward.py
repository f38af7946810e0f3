"""`full --training`: every backward operation counted, checked by hand."""

import textwrap

import staticflops


def analyze(tmp_path, source, shape):
    path = tmp_path / "model.py"
    path.write_text(textwrap.dedent(source))
    return staticflops.analyze(path, inputs=[shape], rules="full", training=True)


def test_linear_relu_linear(tmp_path):
    report = analyze(tmp_path, """
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc1 = nn.Linear(4, 8)
                self.act = nn.ReLU()
                self.fc2 = nn.Linear(8, 3)

            def forward(self, x):
                return self.fc2(self.act(self.fc1(x)))
    """, "2x4")
    assert report.unknown == []
    # forward: fc1 2*8 outputs x (4 mults + 3 adds + 1 bias) = 128; ReLU 16 compares;
    # fc2 2*3 outputs x (8 + 7 + 1) = 96
    assert report.totals.forward_flops == 128 + 16 + 96
    layers = {row.name: row for row in report.layers}
    # fc1: input is the model input, so only dW: 8*4 weights x (2 rows: 2 mults + 1 add) + 8 bias x 1 add
    assert layers["fc1"].backward_flops == 8 * 4 * 3 + 8
    # ReLU: one masked select per element
    assert layers["act"].backward_flops == 16
    # fc2: dX 2*8 elements x (3 mults + 2 adds) = 80; dW 3*8 x 3 + 3 bias x 1 = 75
    assert layers["fc2"].backward_flops == 80 + 75
    assert report.totals.backward_flops == 104 + 16 + 155


def test_conv_batchnorm_maxpool(tmp_path):
    report = analyze(tmp_path, """
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv2d(1, 2, 1, bias=False)
                self.bn = nn.BatchNorm2d(2)
                self.pool = nn.MaxPool2d(2)

            def forward(self, x):
                return self.pool(self.bn(self.conv(x)))
    """, "1x1x4x4")
    layers = {row.name: row for row in report.layers}
    # conv 1x1, 2 output channels on 4x4: 32 products; dW sums them into 2 weights: 2*32 - 2
    assert layers["conv"].backward_flops == 62
    # BatchNorm on 32 elements: the two channel sums (3 per element) + dX (5 per element)
    assert layers["bn"].backward_flops == 3 * 32 + 5 * 32
    # MaxPool 2x2 -> 8 outputs: each gradient added into its argmax
    assert layers["pool"].backward_flops == 8
    assert report.totals.backward_flops == 62 + 256 + 8


def test_full_training_of_every_sample_is_complete():
    for path, shape in [("samples/resnet50.py", "1x3x224x224"), ("samples/transformer.py", "1x64:int64"),
                        ("samples/seed_conv_gru.py", "1x1x100x256"), ("samples/mobilenet_v2.py", "1x3x224x224")]:
        report = staticflops.analyze(path, inputs=[shape], rules="full", training=True)
        assert report.unknown == [], path
