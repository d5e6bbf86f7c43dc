"""Developer tools (vector generators and the like); nothing here runs in the pipeline."""
