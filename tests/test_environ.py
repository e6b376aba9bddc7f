import os

import pytest

from gatebench.common.environ import environ


def test_values_are_set_for_the_block_and_the_callers_come_back_even_on_an_error(monkeypatch):
    monkeypatch.setenv("GB_T_SET", "caller")
    monkeypatch.delenv("GB_T_UNSET", raising=False)
    monkeypatch.setenv("GB_T_DEFAULT", "kept")
    with pytest.raises(RuntimeError), environ({"GB_T_SET": "inner", "GB_T_UNSET": "inner"},
                                              {"GB_T_DEFAULT": "ignored", "GB_T_NEW_DEFAULT": "d"}):
        assert (os.environ["GB_T_SET"], os.environ["GB_T_UNSET"]) == ("inner", "inner")
        # A default never overrides what the caller set; it fills in only what was unset.
        assert (os.environ["GB_T_DEFAULT"], os.environ["GB_T_NEW_DEFAULT"]) == ("kept", "d")
        raise RuntimeError("boom")
    assert os.environ["GB_T_SET"] == "caller" and os.environ["GB_T_DEFAULT"] == "kept"
    assert "GB_T_UNSET" not in os.environ and "GB_T_NEW_DEFAULT" not in os.environ
