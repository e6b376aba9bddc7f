import pytest

from pagekit import PageOutOfRange, Paginator, page_window


def test_exact_multiple_has_no_empty_page():
    for count, per_page, pages in [(40, 10, 4), (12, 4, 3), (7, 7, 1), (30, 3, 10), (6, 1, 6)]:
        p = Paginator(list(range(count)), per_page=per_page)
        assert p.num_pages == pages, (count, per_page)
        assert len(p.page(pages)) == per_page


def test_last_page_is_partial():
    p = Paginator(list(range(1, 46)), per_page=10)
    assert p.num_pages == 5
    assert p.page(5).items == [41, 42, 43, 44, 45]
    assert Paginator(list(range(13)), per_page=4).num_pages == 4


def test_empty_collection_has_one_empty_page():
    p = Paginator([], per_page=10)
    assert p.num_pages == 1
    page = p.page(1)
    assert page.items == []
    assert not page.has_next and not page.has_prev
    with pytest.raises(PageOutOfRange):
        p.page(2)


def test_page_numbers_outside_range_raise():
    for count, per_page in [(45, 10), (40, 10), (30, 3), (0, 5)]:
        p = Paginator(list(range(count)), per_page=per_page)
        for bad in (0, p.num_pages + 1):
            with pytest.raises(PageOutOfRange):
                p.page(bad)
    with pytest.raises(PageOutOfRange):
        Paginator(list(range(40)), per_page=10).page(5)


def test_navigation_flags_at_the_ends():
    for count, per_page, last in [(40, 10, 4), (45, 10, 5), (30, 3, 10)]:
        p = Paginator(list(range(count)), per_page=per_page)
        assert not p.page(last).has_next, (count, per_page)
        assert p.page(last).has_prev
        assert not p.page(1).has_prev


def test_indexes_on_partial_last_page():
    p = Paginator(list(range(45)), per_page=10)
    last = p.page(5)
    assert (last.start_index, last.end_index) == (41, 45)
    assert last.summary() == "Showing 41-45 of 45"
    full = p.page(2)
    assert (full.start_index, full.end_index) == (11, 20)


def test_indexes_are_zero_on_empty_page():
    page = Paginator([], per_page=10).page(1)
    assert (page.start_index, page.end_index) == (0, 0)


def test_window_shifted_at_the_right_edge():
    assert page_window(20, 20, size=5) == [16, 17, 18, 19, 20]
    assert page_window(19, 20, size=5) == [16, 17, 18, 19, 20]
    assert page_window(18, 20, size=5) == [16, 17, 18, 19, 20]
    assert page_window(9, 10, size=3) == [8, 9, 10]
    assert page_window(10, 10, size=4) == [7, 8, 9, 10]


def test_window_with_fewer_pages_than_size():
    assert page_window(2, 3, size=5) == [1, 2, 3]
    assert page_window(1, 1, size=5) == [1]
    assert page_window(4, 4, size=4) == [1, 2, 3, 4]


def test_window_starts_half_size_before_current():
    assert page_window(10, 30, size=7) == [7, 8, 9, 10, 11, 12, 13]
    assert page_window(10, 30, size=4) == [8, 9, 10, 11]
    assert page_window(3, 30, size=5) == [1, 2, 3, 4, 5]
