"""Tests against llama.cpp's server with tiny real models (extra `paor[local]`)."""

#: llama.cpp's CPU threads in these tests: the suite's workers keep both cores busy, and llama.cpp's threads
#: spin-wait for each other at every layer, so its defaults (all cores for the prompt) made a run ~1.8 × slower.
LLAMA_THREADS = 1
