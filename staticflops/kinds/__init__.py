"""The catalogue of op kinds: per kind, everything framework-neutral about it.

One record (``record.Kind``) per kind: its shape function, whether it computes (an op the rule
sets price) or only moves data, its output dtypes and worked examples.  Framework bindings
name a kind (``frontend/torch/tensor_table.py``); costs stay in ``rules/*.yaml``.
"""
