"""NPU407 (session 32): chunks of the plain order as a list, numpy's positions of a clipped chunk, and a batch
filled item by item up to a clipped end, at their lines; NPU408: fairseq's incremental state read through an
accessor of the optional parameter and written back."""
from npu_lint.core import analyse_source
from npu_lint.rules import rules_by_code


def _lines(source, code):
    return sorted(f.line for f in analyse_source(source, codes=frozenset({code})) if f.code == code)


def test_list_of_positions_cut_up_to_its_count():
    fired, quiet = rules_by_code()["NPU407"].must_fire[-4], rules_by_code()["NPU407"].must_not_fire[-1]
    assert _lines(fired, "NPU407") == [5]
    assert _lines(quiet, "NPU407") == []


def test_numpy_positions_of_a_clipped_chunk():
    rule = rules_by_code()["NPU407"]
    assert _lines(rule.must_fire[-3], "NPU407") == [6]
    assert _lines(rule.must_fire[-2], "NPU407") == [6]
    assert _lines(rule.must_not_fire[-3], "NPU407") == []


def test_batch_filled_up_to_a_clipped_end_reported_at_the_clip():
    rule = rules_by_code()["NPU407"]
    assert _lines(rule.must_fire[-1], "NPU407") == [6]
    assert _lines(rule.must_not_fire[-2], "NPU407") == []


def test_incremental_state_through_an_accessor():
    rule = rules_by_code()["NPU408"]
    fired = [e for e in rule.must_fire if "_get_input_buffer" in e]
    quiet = [e for e in rule.must_not_fire if "_get_input_buffer" in e or "self.lookup(memory)" in e]
    assert len(fired) == 1 and len(quiet) == 2
    assert _lines(fired[0], "NPU408") == [12]
    assert [_lines(q, "NPU408") for q in quiet] == [[], []]
