"""Crisps!'s messages are the common addressed messages (``crisp.engine.common.messages``): the
``round`` message without a hand goes to ``WATCHERS``, each hand to its seat."""

from crisp.engine.common.messages import WATCHERS, Message, Out, dumps_stream, encode, stream

__all__ = ["WATCHERS", "Message", "Out", "dumps_stream", "encode", "stream"]
