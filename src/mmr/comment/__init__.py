"""One sticky pull-request comment per review: the markdown report, updated in place."""
