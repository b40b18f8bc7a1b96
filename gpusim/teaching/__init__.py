"""Teaching and display: the lost-update demo, pictures of matchings and schedules, the simulator's
throughput benchmark.  No algorithm and no backend imports these."""
