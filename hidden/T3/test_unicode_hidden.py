import unicodedata

from tagdex import Note, TagIndex, display_width, format_listing, slugify, tag_key, truncate


def test_slug_drops_accents():
    assert slugify("Crème Brûlée") == "creme-brulee"
    assert slugify("Ångström à la carte") == "angstrom-a-la-carte"
    # the same title typed with combining accents
    assert slugify("Cre\u0300me Bru\u0302le\u0301e") == "creme-brulee"


def test_slug_sharp_s_becomes_ss():
    assert slugify("Straße") == "strasse"
    assert slugify("GROẞE Pläne") == "grosse-plane"


def test_slug_keeps_letters_of_other_scripts():
    assert slugify("Ελληνικά Νέα") == "ελληνικα-νεα"
    assert slugify("Привет, мир") == "привет-мир"
    assert slugify("東京 2024") == "東京-2024"


def test_slug_separators_collapse():
    assert slugify("  Hello,   World!! ") == "hello-world"
    assert slugify("Party 🎉 time") == "party-time"
    assert slugify("🎉🎉") == "untitled"


def test_tags_match_with_full_case_folding():
    index = TagIndex()
    index.add("n1", ["Straße"])
    index.add("n2", ["STRASSE"])
    assert index.notes_with("strasse") == ["n1", "n2"]
    assert tag_key("Straße") == tag_key("STRASSE")


def test_tags_match_across_composed_and_decomposed_accents():
    index = TagIndex()
    index.add("n1", ["café"])
    index.add("n2", ["CAFE\u0301"])
    assert index.notes_with("Café") == ["n1", "n2"]
    assert index.all_tags() == ["café"]


def test_tags_match_compatibility_forms():
    index = TagIndex()
    index.add("n1", ["ＰＹＴＨＯＮ"])
    index.add("n2", ["ﬁnance"])
    assert index.notes_with("python") == ["n1"]
    assert index.notes_with("Finance") == ["n2"]


def test_display_width_counts_columns():
    assert display_width("notes") == 5
    assert display_width("東京") == 4
    assert display_width("ＡＢ") == 4
    assert display_width("ｱｲ") == 2
    assert display_width("Cafe\u0301") == 4


def test_truncate_wide_characters():
    assert truncate("東京都庁の展望台", 7) == "東京都…"
    assert truncate("東京都庁の展望台", 8) == "東京都…"
    assert truncate("東京都庁", 4) == "東…"
    assert truncate("東京都庁", 8) == "東京都庁"
    for width in range(1, 12):
        assert display_width(truncate("東京都庁の展望台", width)) <= width


def test_truncate_keeps_combining_marks_with_their_letter():
    assert truncate("Cafe\u0301 au lait", 5) == "Cafe\u0301…"
    assert truncate("Cafe\u0301", 4) == "Cafe\u0301"
    assert truncate("Cre\u0300me brûlée", 4) == "Cre\u0300…"


def columns(text):
    # independent of the package under test
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def test_listing_columns_line_up():
    notes = [
        Note("1", "東京の天気", ["travel"]),
        Note("2", "Weather", ["home"]),
        Note("3", "Cafe\u0301 list", ["food"]),
    ]
    lines = format_listing(notes, title_width=12)
    assert {columns(line[: line.index("#")]) for line in lines} == {3 + 12 + 2}
