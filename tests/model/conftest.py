"""The model tests share :mod:`handbuilt`; its asserts are rewritten so a failure shows both views."""
import pytest

pytest.register_assert_rewrite("handbuilt")
