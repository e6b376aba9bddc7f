import pytest

from envfile import ParseError, dotenv_values, load, parse


def test_reference_inside_double_quotes():
    text = 'USER=ana\nGREETING="hi ${USER}!"\n'
    assert parse(text, environ={})["GREETING"] == "hi ana!"


def test_falls_back_to_environ_mapping():
    assert parse("HOME_DIR=${HOME}/app", environ={"HOME": "/home/ana"}) == {"HOME_DIR": "/home/ana/app"}


def test_file_key_beats_environ():
    text = "HOST=file-host\nURL=http://${HOST}/\n"
    assert parse(text, environ={"HOST": "env-host"})["URL"] == "http://file-host/"


def test_unknown_name_is_empty():
    assert parse('A="[${NOPE}]"\nB=x${NOPE}y', environ={}) == {"A": "[]", "B": "xy"}


def test_default_for_unset_and_for_empty():
    text = "EMPTY=\nA=${EMPTY:-fallback}\nB=${UNSET:-fallback}\nC=${SET:-fallback}\nD=${UNSET:-}\n"
    values = parse(text, environ={"SET": "given"})
    assert values["A"] == "fallback"
    assert values["B"] == "fallback"
    assert values["C"] == "given"
    assert values["D"] == ""


def test_single_quoted_value_is_not_interpolated():
    text = "NAME=bob\nRAW='${NAME} costs $5'\n"
    assert parse(text, environ={})["RAW"] == "${NAME} costs $5"


def test_escaped_dollar_in_double_quotes_is_literal():
    text = 'NAME=bob\nMSG="\\${NAME} is ${NAME}"\n'
    assert parse(text, environ={})["MSG"] == "${NAME} is bob"


def test_dollar_without_brace_is_kept():
    text = 'NAME=bob\nA=$NAME\nB="cost: $5 and $"\n'
    assert parse(text, environ={"NAME": "env"}) == {"NAME": "bob", "A": "$NAME", "B": "cost: $5 and $"}


def test_unclosed_reference_is_a_parse_error_with_line():
    with pytest.raises(ParseError) as exc:
        parse("A=1\n\nB=${A\n", environ={})
    assert exc.value.lineno == 3


def test_key_defined_later_is_not_seen():
    text = "URL=http://${HOST}/\nHOST=late\n"
    assert parse(text, environ={})["URL"] == "http:///"
    assert parse(text, environ={"HOST": "env"})["URL"] == "http://env/"


def test_substituted_text_is_not_expanded_again():
    text = "TEMPLATE='${SECRET}'\nSECRET=s3cret\nOUT=${TEMPLATE}\n"
    assert parse(text, environ={})["OUT"] == "${SECRET}"


def test_load_and_dotenv_values_resolve_against_environ(tmp_path):
    p = tmp_path / ".env"
    p.write_text("DATA=${BASE:-/srv}/data\n", encoding="utf-8")
    env = {"BASE": "/opt"}
    assert load(p, environ=env) == {"DATA": "/opt/data"}
    assert env["DATA"] == "/opt/data"
    assert dotenv_values(p, environ={}) == {"DATA": "/srv/data"}
