"""Reference engines: the complete solutions the learner skeletons are generated from."""
