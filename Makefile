# The two set-up commands (README): `make run` starts Parley, `make test` runs the whole suite.
# Both bootstrap a fresh machine first (Debian packages when root, .venv, pip install).

.PHONY: run test lint bootstrap screenshots

bootstrap:
	@bash scripts/bootstrap.sh

run: bootstrap
	.venv/bin/parley

test: bootstrap
	@bash scripts/test.sh

lint: bootstrap
	.venv/bin/ruff check .

# Screenshots of the real window under Xvfb (docs/screenshots/), with a private Secret Service so the window
# sees a real keyring; needs xvfb, dbus-run-session and gnome-keyring (bootstrap installs them as root).
screenshots: bootstrap
	QT_QPA_PLATFORM=xcb xvfb-run -a -s "-screen 0 1400x900x24" \
		scripts/with_secret_service.sh .venv/bin/python scripts/screenshots.py
	QT_QPA_PLATFORM=xcb xvfb-run -a -s "-screen 0 1400x900x24" .venv/bin/python scripts/usage_screenshots.py
