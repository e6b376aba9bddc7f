from tagdex.text import slugify, tag_key


def test_accented_title_gives_a_plain_slug():
    assert slugify("Crème Brûlée") == "creme-brulee"


def test_sharp_s_tags_match_their_capitals():
    assert tag_key("Straße") == tag_key("STRASSE")
