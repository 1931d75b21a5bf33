"""unosim.results: results on disk: run files, the results store, output folders, loaders and the backends."""
