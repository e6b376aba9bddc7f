import pytest

from tagdex import display_width, slugify, truncate


def test_slugify_ascii():
    assert slugify("Hello, World!") == "hello-world"
    assert slugify("  Release notes -- v2.1  ") == "release-notes-v2-1"


def test_slugify_accented_title():
    assert slugify("Crème Brûlée") == "crème-brûlée"


def test_slugify_empty_title():
    assert slugify("!!!") == "untitled"


def test_truncate_ascii():
    assert truncate("meeting notes", 20) == "meeting notes"
    assert truncate("meeting notes", 8) == "meeting…"


def test_truncate_rejects_zero_width():
    with pytest.raises(ValueError):
        truncate("abc", 0)


def test_display_width_ascii():
    assert display_width("notes") == 5
