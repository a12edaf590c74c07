from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings

FIXTURES = Path(settings.BASE_DIR) / "fixtures" / "knowledge"


@pytest.fixture(scope="module")
def kiwi():
    """Load the Kiwi model once (it is process-wide anyway) so its ~2.5 s is not charged to one test."""
    from common.tokenize import warm_up

    warm_up()


@pytest.fixture
def knowledge_dir() -> Path:
    return FIXTURES


@pytest.fixture
def knowledge_indexed(db, kiwi, knowledge_dir):
    """The real fixture FAQ and documents, loaded and indexed, inside the test's transaction."""
    from knowledge.services import knowledge_fixture_load, knowledge_index_build

    knowledge_fixture_load(directory=knowledge_dir)
    knowledge_index_build()
