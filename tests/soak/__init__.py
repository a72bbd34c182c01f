"""The soak (`just soak`): a shared deployment under mixed load, publishes and a Redis restart."""
