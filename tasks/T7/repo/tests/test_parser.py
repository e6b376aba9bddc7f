import pytest

from envfile import ParseError, parse


def test_basic_pairs_comments_and_blanks():
    text = "# settings\n\nHOST=localhost\nPORT = 8080\n"
    assert parse(text) == {"HOST": "localhost", "PORT": "8080"}


def test_export_prefix_is_ignored():
    assert parse("export TOKEN=abc") == {"TOKEN": "abc"}


def test_inline_comment_after_unquoted_value():
    assert parse("URL=http://x/#frag  # the url") == {"URL": "http://x/#frag"}


def test_single_quotes_are_literal():
    assert parse(r"PATTERN='a\nb'") == {"PATTERN": r"a\nb"}


def test_double_quotes_understand_escapes():
    assert parse(r'MSG="hello\tworld\n"') == {"MSG": "hello\tworld\n"}


def test_last_duplicate_wins():
    assert parse("A=1\nA=2") == {"A": "2"}


def test_missing_equals_names_the_line():
    with pytest.raises(ParseError) as exc:
        parse("A=1\n\nnonsense\n")
    assert exc.value.lineno == 3


def test_unterminated_quote_is_an_error():
    with pytest.raises(ParseError):
        parse('A="open')


def test_reference_to_an_earlier_key():
    text = "HOST=db.local\nURL=postgres://${HOST}:5432/app\n"
    assert parse(text)["URL"] == "postgres://db.local:5432/app"


def test_default_for_an_unset_variable():
    assert parse("LEVEL=${LOG_LEVEL:-info}", environ={}) == {"LEVEL": "info"}
