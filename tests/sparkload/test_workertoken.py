"""Proofs of the worker token (sparkload.workertoken): the token itself is never sent."""

from __future__ import annotations

from sparkload.workertoken import MASTER, WORKER, new_nonce, proof, verify


def test_a_proof_made_with_the_token_verifies():
    assert verify("t0ken", WORKER, proof("t0ken", WORKER, "n1", "n2", "id"), "n1", "n2", "id")


def test_a_proof_made_with_another_token_does_not():
    assert not verify("t0ken", WORKER, proof("other", WORKER, "n1", "n2", "id"), "n1", "n2", "id")


def test_the_masters_proof_never_passes_as_the_workers():
    assert not verify("t0ken", WORKER, proof("t0ken", MASTER, "n1", "n2", "id"), "n1", "n2", "id")


def test_a_proof_is_bound_to_its_nonces_and_client_id():
    made = proof("t0ken", WORKER, "n1", "n2", "id")
    assert not verify("t0ken", WORKER, made, "n1", "n2", "another-id")
    assert not verify("t0ken", WORKER, made, "n1", "n3", "id")


def test_the_proof_does_not_contain_the_token():
    token = "a-token-that-must-not-travel"
    assert token not in proof(token, WORKER, "n1", "n2", "id")


def test_a_missing_proof_fails():
    assert not verify("t0ken", WORKER, None, "n1", "n2", "id")


def test_every_nonce_is_new():
    assert len({new_nonce() for _ in range(100)}) == 100
