"""The interpreter's bounds by name, with their defaults: one table that the interpreter's
budget (``frontend/budget.py``), the ``--max-*`` flags and the config's ``limits`` all read.
Stdlib only and import-free, so the CLI can list the flags without loading the analyser."""

DEFAULT_LIMITS = {
    "max_steps": 2_000_000,  # evaluation steps in all
    "max_loop_iterations": 1_000_000,  # loop iterations in all
    "max_depth": 150,  # nested calls
    "max_container": 1_000_000,  # items in one list, tuple or string
    "max_expr_terms": 10_000,  # terms of one symbolic polynomial, e.g. (B + S) ** 200
    "max_int_bits": 100_000,  # bits of one integer: `2 ** 10**9` would take minutes and gigabytes
    "max_import_depth": 50,  # project files importing each other in a chain
    "max_file_bytes": 5_000_000,  # size of one analysed file
}
LIMIT_NAMES = tuple(DEFAULT_LIMITS)
