"""unosim.reports: reports: charts, HTML pages and the report of saved runs."""
