"""A plain multilayer perceptron 784-512-256-128-10 (MNIST-sized), input 8x784."""

from torch import nn


class MLP(nn.Module):
    def __init__(self, sizes=(784, 512, 256, 128, 10)):
        super().__init__()
        layers = []
        for i, (fan_in, fan_out) in enumerate(zip(sizes[:-1], sizes[1:])):
            layers.append(nn.Linear(fan_in, fan_out))
            if i < len(sizes) - 2:
                layers.append(nn.ReLU(inplace=True))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)
