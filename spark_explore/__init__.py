"""Breadth-first exploration on Spark over hash-partitioned frontiers. Only this package imports pyspark."""
