from django import template

from metrics import formatting

register = template.Library()
register.filter("duration", formatting.duration)
register.filter("percent", formatting.percent)
register.filter("number", formatting.fmt_number)
