"""Pure rules about orders and products, on plain values."""

from __future__ import annotations

# What customers (and agents) call a product: the last word of its name, and the nicknames people use for
# it. Keyed by a word of the product's name, so a shop's own catalogue gets its words without an entry.
PRODUCT_NICKNAMES: dict[str, tuple[str, ...]] = {
    "운동화": ("운동화", "신발", "스니커즈", "슈즈", "쿠션화", "런닝화", "러닝화", "sneakers", "sneaker", "shoes"),
    "텀블러": ("텀블러", "컵", "보온병", "물병", "텀블", "tumbler", "bottle"),
    "이어폰": ("이어폰", "이어버드", "무선이어폰", "블루투스이어폰", "버즈", "이어팟", "earphones", "earbuds"),
    "티셔츠": ("티셔츠", "티", "반팔", "면티", "셔츠", "티샤쓰", "t-shirt", "tshirt"),
    "백팩": ("백팩", "가방", "책가방", "배낭", "backpack"),
    "스피커": ("스피커", "블투스피커", "speaker"),
    "매트": ("매트", "요가매트", "매트리스", "yoga mat"),
}


def product_words(product_name: str) -> list[str]:
    """The words that name a product in a sentence: its whole name without spaces, each word of two or more
    characters, and their nicknames. "쿠션 운동화" → 쿠션운동화, 쿠션, 운동화, 신발, 스니커즈 …"""
    words = [w for w in product_name.split() if len(w) >= 2]
    out = [product_name.replace(" ", "")] + words
    for word in words:
        out += PRODUCT_NICKNAMES.get(word, ())
    return list(dict.fromkeys(out))
