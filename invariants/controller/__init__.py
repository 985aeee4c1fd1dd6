"""The controller mode's properties (``--mode controller``): the claims of the mechanisms page's §9.5,
each a compiled predicate over the field vector of :mod:`model.controller.fields`, declared with
``@check`` in a concern module (:mod:`.durability`, :mod:`.election`, :mod:`.witnesses`).

A property observes the cluster as a RocketMQ user would (:mod:`.observations`): the controller's current
master, the brokers that accept writes, the messages the producer was told SEND_OK and the message the
consumer was given at each queue offset. It reads fields only, never the model's routing code, so a bug
in an action cannot make a property agree with it.
"""


def __getattr__(name: str):
    # on first use: the property set's module compiles the generated checks (explicit signatures compile
    # at import), which python -m invariants.controller.declare, regenerating them, must not need
    if name in ("PROPERTIES", "AVAILABILITY_WITNESSES"):
        from . import properties
        return getattr(properties, name)
    raise AttributeError(f"module 'invariants.controller' has no attribute {name!r}")


__all__ = ["PROPERTIES", "AVAILABILITY_WITNESSES"]
