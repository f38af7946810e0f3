# collections.UserDict, written as Python and run by our interpreter (never by Python): a
# MutableMapping whose items live in a plain dict, `self.data`, for the analysed code's
# subclasses (transformers' KVSharingDict).  `MutableMapping` is bound to collections.abc's.


class UserDict(MutableMapping):
    def __init__(self, dict=None, **kwargs):
        self.data = {}
        if dict is not None:
            self.update(dict)
        if kwargs:
            self.update(kwargs)

    def __len__(self):
        return len(self.data)

    def __getitem__(self, key):
        if key in self.data:
            return self.data[key]
        if hasattr(type(self), "__missing__"):
            return type(self).__missing__(self, key)
        raise KeyError(key)

    def __setitem__(self, key, item):
        self.data[key] = item

    def __delitem__(self, key):
        del self.data[key]

    def __iter__(self):
        return iter(self.data)

    def __contains__(self, key):
        return key in self.data

    def keys(self):
        return list(self.data)

    def copy(self):
        made = type(self)()
        made.data = dict(self.data)
        return made
