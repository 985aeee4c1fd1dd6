"""Toy models for testing and benchmarking the engines apart from RocketMQ."""
