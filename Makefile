# The two set-up commands (README): `make run` starts Parley, `make test` runs the whole suite.
# Both bootstrap a fresh machine first (Debian packages when root, .venv, pip install).

.PHONY: run test lint bootstrap

bootstrap:
	@bash scripts/bootstrap.sh

run: bootstrap
	.venv/bin/parley

test: bootstrap
	@bash scripts/test.sh

lint: bootstrap
	.venv/bin/ruff check .
