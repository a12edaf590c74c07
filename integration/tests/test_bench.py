import pytest

from bench.shop import run


@pytest.mark.django_db(transaction=True)
def test_the_shop_benchmark_imports_and_delivers_everything_at_small_n():
    result = run(orders=30, events=10)
    assert result["orders"] == 30 and result["delivered"] == 10
    assert result["orders_per_s"] > 0 and result["delivery_p95_ms"] >= result["delivery_p50_ms"] >= 0
