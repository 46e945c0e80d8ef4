"""The review cache: a channel's reply reused when the same channel gets the same prompt."""
