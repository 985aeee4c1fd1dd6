"""rmqcheck: the command line of the RocketMQ 4.4 model checker."""
