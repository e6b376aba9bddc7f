import pytest

from pagekit import page_window
from pagekit.window import render_window


def test_window_centred_in_the_middle():
    assert page_window(6, 20, size=5) == [4, 5, 6, 7, 8]


def test_window_at_first_page():
    assert page_window(1, 20, size=5) == [1, 2, 3, 4, 5]


def test_render_marks_current_page():
    assert render_window(6, 20, size=5) == "< 4 5 [6] 7 8 >"


def test_current_outside_range_rejected():
    with pytest.raises(ValueError):
        page_window(0, 20)
