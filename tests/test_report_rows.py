"""Report rows are built without pydantic's model_construct (a hot loop on deep models): each
row must be exactly what model_construct would have built from the same values."""

import staticflops
from staticflops.report.schema import Layer


def test_rows_equal_what_model_construct_builds():
    report = staticflops.analyze("samples/transformer.py", inputs=["1x64:int64"], training=True)
    kinds = {row.kind for row in report.layers}
    assert kinds == {"module", "op"}  # both kinds of row are checked (the attention core is an op)
    for row in report.layers:
        given = {name: row.__dict__[name] for name in row.model_fields_set}
        expected = Layer.model_construct(**given)
        assert list(row.__dict__.items()) == list(expected.__dict__.items())  # same values, same order
        assert row.model_fields_set == expected.model_fields_set
        assert row.__pydantic_extra__ == expected.__pydantic_extra__
        assert row.__pydantic_private__ == expected.__pydantic_private__
        # an op row leaves `calls` unset (its default, 1); a module row sets every field
        assert row.model_fields_set == (set(Layer.model_fields) - {"calls"} if row.kind == "op"
                                        else set(Layer.model_fields))
