# `abc`, written as Python and run by our interpreter (never by Python) on first use.
# Abstract methods are only a mark here: Python refuses to instantiate a class that leaves one
# unimplemented, a program we analyse does not (it ran), so nothing checks them.


class ABCMeta(type):
    def register(cls, subclass):
        return subclass


class ABC(metaclass=ABCMeta):
    __slots__ = ()


def abstractmethod(funcobj):
    funcobj.__isabstractmethod__ = True
    return funcobj


def abstractclassmethod(callable):
    return classmethod(abstractmethod(callable))


def abstractstaticmethod(callable):
    return staticmethod(abstractmethod(callable))


def abstractproperty(callable):
    return property(abstractmethod(callable))
