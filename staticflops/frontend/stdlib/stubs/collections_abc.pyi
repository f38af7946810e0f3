# collections.abc's mixin methods, written as Python and run by our interpreter (never by
# Python).  A class that defines the abstract methods (__getitem__, __iter__, __len__,
# __setitem__, __delitem__, ...) gets the rest from these, as CPython's abc classes give them.
# One difference: Mapping.__contains__ looks for the key among the iterated keys instead of
# catching a KeyError from __getitem__; the two agree for every mapping whose __iter__ lists
# its keys.


class Hashable:
    pass


class Iterable:
    pass


class Iterator(Iterable):
    pass


class Sized:
    pass


class Container:
    pass


class Callable:
    pass


class Collection(Sized, Iterable, Container):
    pass


class Mapping(Collection):
    def __contains__(self, key):
        for known in self:
            if known == key:
                return True
        return False

    def get(self, key, default=None):
        if key in self:
            return self[key]
        return default

    def keys(self):
        return [key for key in self]

    def items(self):
        return [(key, self[key]) for key in self]

    def values(self):
        return [self[key] for key in self]


class MutableMapping(Mapping):
    def pop(self, key, *default):
        if key in self:
            value = self[key]
            del self[key]
            return value
        if default:
            return default[0]
        raise KeyError(key)

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def update(self, other=(), **kwargs):
        if isinstance(other, (dict, Mapping)):
            for key in other.keys():
                self[key] = other[key]
        else:
            for key, value in other:
                self[key] = value
        for key, value in kwargs.items():
            self[key] = value

    def clear(self):
        for key in list(self):
            del self[key]


class Sequence(Collection):
    def __iter__(self):
        return [self[index] for index in range(len(self))]

    def __contains__(self, value):
        for item in self:
            if item == value:
                return True
        return False

    def __reversed__(self):
        return [self[index] for index in reversed(range(len(self)))]

    def index(self, value):
        for index in range(len(self)):
            if self[index] == value:
                return index
        raise ValueError(value)

    def count(self, value):
        return sum(1 for item in self if item == value)


class MutableSequence(Sequence):
    def append(self, value):
        self.insert(len(self), value)

    def extend(self, values):
        for value in values:
            self.append(value)

    def pop(self, index=-1):
        value = self[index]
        del self[index]
        return value


class Set(Collection):
    pass


class MutableSet(Set):
    pass
