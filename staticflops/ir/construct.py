"""Pydantic models built from values we computed ourselves, without pydantic's per-field work.

``model_construct`` skips validation but still walks every field (aliases, defaults, extra
fields): ~8 µs an object, a third of building a 96-block GPT's IR and most of its report rows.
For a model with none of those features, filling the instance's storage directly gives the
same object; any other model goes through ``model_construct``.  ``tests/test_construct.py``
compares the two for every model built this way."""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel

Model = TypeVar("Model", bound=BaseModel)
_set = object.__setattr__
_new = object.__new__
_PLAIN: dict = {}


def construct(cls: type[Model], values: dict, given=None) -> Model:
    """``cls.model_construct(**values)``.  ``values`` holds every field, in declaration order;
    ``given``: the fields set explicitly (default: all of them), as ``model_fields_set`` reports."""
    plain = _PLAIN.get(cls)
    if plain is None:
        plain = _PLAIN[cls] = _is_plain(cls)
    fields_set = set(values) if given is None else set(given)
    if not plain:
        return cls.model_construct(_fields_set=fields_set, **values)
    model = _new(cls)  # the class has no __new__ of its own (_is_plain): object's, without the metaclass lookup
    _set(model, "__dict__", values)
    _set(model, "__pydantic_fields_set__", fields_set)
    _set(model, "__pydantic_extra__", None)
    _set(model, "__pydantic_private__", None)
    return model


def _is_plain(cls: type[BaseModel]) -> bool:
    """No ``__new__`` of its own, root model, post-init hook, extra fields, private attributes
    or aliases: what ``model_construct`` does for it reduces to the four stores above."""
    return (cls.__new__ is _new and not cls.__pydantic_root_model__ and not cls.__pydantic_post_init__
            and cls.model_config.get("extra") != "allow" and not cls.__private_attributes__
            and all(f.alias is None and f.validation_alias is None for f in cls.model_fields.values()))
