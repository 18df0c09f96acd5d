"""Locust's --web-login, made usable: one username and password from the environment.

Locust's login page needs a handler from the locustfile; this is sparkload's. The credentials
come from SPARKLOAD_WEB_USER and SPARKLOAD_WEB_PASSWORD (never from options, which Locust shows in
its UI); the session key is random per start, so restarting the master logs everyone out.
"""

from __future__ import annotations

import hmac
import os
import secrets

from flask import Blueprint, redirect, request, session, url_for
from flask_login import UserMixin, login_user

from sparkload.errors import ConfigError

USER_VARIABLE = "SPARKLOAD_WEB_USER"
PASSWORD_VARIABLE = "SPARKLOAD_WEB_PASSWORD"


class WebUser(UserMixin):
    def __init__(self, name: str) -> None:
        self.name = name

    def get_id(self) -> str:
        return self.name


def enable(web_ui, base_path: str = "") -> None:
    """Install the login handler; a ConfigError when the credentials are not set."""
    user, password = os.environ.get(USER_VARIABLE), os.environ.get(PASSWORD_VARIABLE)
    if not user or not password:
        raise ConfigError(
            f"--web-login needs {USER_VARIABLE} and {PASSWORD_VARIABLE} in the environment"
        )
    web_ui.app.config["SECRET_KEY"] = secrets.token_hex(32)
    web_ui.login_manager.user_loader(lambda name: WebUser(name) if name == user else None)
    web_ui.auth_args = {"username_password_callback": f"{base_path}/sparkload/login"}
    blueprint = Blueprint("sparkload_login", __name__, url_prefix=base_path)

    @blueprint.route("/sparkload/login", methods=["POST"])
    def login_submit():
        given_user = request.form.get("username", "")
        given_password = request.form.get("password", "")
        if hmac.compare_digest(given_user, user) and hmac.compare_digest(given_password, password):
            login_user(WebUser(user))
            return redirect(url_for("locust.index"))
        session["auth_error"] = "Invalid username or password"
        return redirect(url_for("locust.login"))

    web_ui.app.register_blueprint(blueprint)
