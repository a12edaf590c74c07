from .base import *  # noqa: F401,F403
from .base import env_bool

DEBUG = env_bool("DEBUG", True)
# `make run` and `manage.py shop_simulator` deliver webhooks to a shop on this machine (127.0.0.1).
CS_WEBHOOK_ALLOW_PRIVATE_TARGETS = env_bool("CS_WEBHOOK_ALLOW_PRIVATE_TARGETS", True)
