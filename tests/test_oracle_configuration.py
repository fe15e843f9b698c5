"""An oracle is configured once: what it judges by cannot change under a cache of its verdicts."""

from __future__ import annotations

import pytest

from oracles import ORACLES, OracleOptions, Verdict, make_oracle

REQUIRED = OracleOptions(cmd="true {}", pattern="flow.dispatch", phase="flow", threshold=1, match="error", pipeline_a=["-a"], pipeline_b=["-b"])


@pytest.mark.parametrize("name", list(ORACLES))
def test_setting_an_attribute_of_a_configured_oracle_raises(name):
    oracle = make_oracle(name, REQUIRED)
    with pytest.raises(AttributeError, match="configured once"):
        oracle.reference = Verdict(True, "x")
    with pytest.raises(AttributeError, match="configured once"):
        oracle.options = OracleOptions()


def test_calibration_and_stop_phase_make_new_oracles_and_leave_the_old_one_as_it_was():
    loose = make_oracle("compile-error")
    pinned = loose.calibrated(Verdict(True, "error: some failure"))
    stopping = pinned.stopping_at("flow")
    assert loose.reference is None and pinned.reference.signature == "error: some failure"
    assert "--compile-to=flow" in stopping.compile_flags([]) and "--compile-to=flow" not in pinned.compile_flags([])
    assert stopping.stopping_at(None).compile_flags([]) == pinned.compile_flags([])
