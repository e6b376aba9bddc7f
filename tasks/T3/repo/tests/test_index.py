from tagdex import Note, TagIndex, format_listing


def test_tags_are_case_insensitive():
    index = TagIndex()
    index.add("n1", ["Python"])
    index.add("n2", ["python", "cli"])
    assert index.notes_with("PYTHON") == ["n1", "n2"]
    assert index.all_tags() == ["cli", "Python"]


def test_remove_drops_unused_tags():
    index = TagIndex()
    index.add("n1", ["a", "b"])
    index.add("n2", ["b"])
    index.remove("n1")
    assert index.all_tags() == ["b"]
    assert index.counts() == {"b": 1}


def test_listing_ascii():
    lines = format_listing([Note("1", "Groceries", ["home"]), Note("12", "A very long title for a note", [])],
                           title_width=10)
    assert lines == ["1   Groceries   #home", "12  A very lo…"]
