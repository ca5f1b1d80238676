def pytest_configure(config):
    config.addinivalue_line("markers", "tmux: end-to-end test of `unonet play` in a real terminal (needs tmux)")
