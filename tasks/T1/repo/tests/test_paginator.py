import pytest

from pagekit import PageOutOfRange, Paginator


def test_pages_hold_consecutive_slices():
    p = Paginator(list(range(1, 26)), per_page=10)
    assert p.page(1).items == list(range(1, 11))
    assert p.page(2).items == list(range(11, 21))


def test_exact_multiple_has_no_trailing_empty_page():
    p = Paginator(list(range(40)), per_page=10)
    assert p.num_pages == 4
    assert [len(page) for page in p] == [10, 10, 10, 10]


def test_middle_page_navigation():
    p = Paginator(list(range(25)), per_page=10)
    page = p.page(2)
    assert page.has_prev and page.has_next
    assert page.prev_number == 1
    assert page.next_number == 3


def test_start_index_of_second_page():
    p = Paginator(list(range(25)), per_page=10)
    assert p.page(2).start_index == 11


def test_empty_collection_has_one_page():
    p = Paginator([], per_page=10)
    assert p.num_pages == 1


def test_bad_per_page_rejected():
    with pytest.raises(ValueError):
        Paginator([1, 2], per_page=0)


def test_negative_page_rejected():
    with pytest.raises(PageOutOfRange):
        Paginator(list(range(5)), per_page=2).page(-1)
