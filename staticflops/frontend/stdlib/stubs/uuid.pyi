# `uuid`, written as Python and run by our interpreter (never by Python) on first use.  Library
# code tags a session or a temporary name with one (transformers' user agent: session_id/<hex>).
# uuid4() is random: the analysis is one run of the program, and in it uuid4() returns this
# fixed value (version 4, variant RFC 4122), one Python could return; no cost depends on it.

_HEX = "6f0c5e1a8d2b4c7e9a3f1b2c3d4e5f60"
_int = int  # the parameter `int` of UUID() hides the builtin, as in CPython's uuid.py


class UUID:
    def __init__(self, hex=None, int=None):
        if hex is not None:
            self.hex = hex.replace("-", "").replace("{", "").replace("}", "").lower()
        else:
            self.hex = "%032x" % int
        self.int = _int(self.hex, 16)

    def __str__(self):
        h = self.hex
        return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]

    def __repr__(self):
        return "UUID('" + str(self) + "')"

    def __eq__(self, other):
        return isinstance(other, UUID) and other.hex == self.hex

    def __hash__(self):
        return hash(self.hex)


def uuid4():
    return UUID(_HEX)
