# The two commands a new user needs: `make run` and `make test`.
PYTHON ?= python3.11
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)
export CS_TODAY ?= 2026-07-27

.PHONY: run test install migrate seed worker lint bench bench-shop bench-live evals chaos contract clean

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q ".[test]"
	@rm -f $(VENV)/.installed-* && touch $(STAMP)

install: $(STAMP)

migrate: install
	$(PY) manage.py migrate --noinput

seed: migrate
	$(PY) manage.py seed_demo

## The product on the embedded default: SQLite under var/, no Redis, the built-in offline model, demo data.
run: seed
	@echo "→ http://127.0.0.1:8000/  (chat, log in as c003 / demo1234)"
	@echo "→ http://127.0.0.1:8000/admin/  (operator / demo1234)"
	$(PY) manage.py runserver 127.0.0.1:8000

## The whole suite: once on PostgreSQL (locks, concurrency, Redis/Celery), once on the embedded SQLite default.
test: install
	bash scripts/test.sh

worker: install
	$(VENV)/bin/celery -A cs_project worker -B -l info

## How close the system runs to the model's limit: PostgreSQL db cs_bench, Redis db 14, a scripted model
## (L = 300 ms). Writes bench/results/latest.json and the tables in docs/BENCHMARKS.md; prints missed targets.
## Then the shop connection: 100k orders imported into cs_bench (and 2k line by line vs batched, for the ratio),
## webhook delivery in-process and through a Celery worker on Redis db 14; one JSON line.
SHOP_BENCH_DB     ?= postgres://postgres@127.0.0.1:5432/cs_bench
SHOP_BENCH_BROKER ?= redis://127.0.0.1:6379/14
bench: install
	$(PY) -m bench
	DATABASE_URL=$(SHOP_BENCH_DB) $(PY) -m bench.shop --orders 100000 --events 500 --compare 2000 \
		--broker $(SHOP_BENCH_BROKER)

## Only the shop connection's figures (import orders/s, webhook delivery p50/p95 in-process and via the broker).
bench-shop: install
	DATABASE_URL=$(SHOP_BENCH_DB) $(PY) -m bench.shop --orders $(or $(ORDERS),10000) --events $(or $(EVENTS),300) \
		--compare $(or $(COMPARE),1000) --broker $(SHOP_BENCH_BROKER)

## Lists that update themselves: polling vs server-sent events, 200 idle open lists and the delay to a new inquiry
## (PostgreSQL db cs_bench_live, recreated; gunicorn; headless Chromium). Writes bench/results/live_lists.json.
bench-live: install
	$(PY) -m bench.live_lists --also-poll-gthread

## How well the agent and the drafts serve customers (issue 15): a scratch database, the built-in model unless
## MODEL names one on OPENAI_BASE_URL. Reports under var/evals/ (the README section "Measuring the agent and the drafts" explains them).
evals: install
	$(PY) manage.py eval_agent --model $(or $(MODEL),offline)
	$(PY) manage.py eval_drafts --model $(or $(MODEL),offline)

## Fault injection on production settings (gunicorn, Celery worker + beat, own Redis, PostgreSQL behind a
## cuttable proxy, scripted model at 0.8 s per call). Database cs_chaos (CHAOS_DATABASE_URL) is recreated.
## Prints the table and writes docs/RELIABILITY.md; exits 1 if a scenario does not recover. CHAOS_ARGS=--quick
chaos: install
	$(PY) -m chaos $(CHAOS_ARGS)

## The OpenAPI documents as a contract: schemathesis (own venv) against a live embedded server, customer,
## shop, login and staff APIs. EXAMPLES=100 per operation.
contract: install
	bash scripts/contract.sh

clean:
	rm -rf $(VENV) var/*.sqlite3* staticfiles test-artifacts
