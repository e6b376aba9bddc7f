from pagekit import Paginator


def test_exact_multiple_of_per_page_ends_with_a_full_page():
    p = Paginator(list(range(30)), per_page=10)
    assert p.num_pages == 3
    assert p.page(3).items == list(range(20, 30))
    assert not p.page(3).has_next
