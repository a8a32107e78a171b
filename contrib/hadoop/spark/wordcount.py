"""Word count on an XtreemFS-QoS volume with Spark, through the Hadoop adapter (xtreemfs:// URLs).

Usage: spark-submit --jars xtreemfs-hadoop-VERSION-hadoop.jar wordcount.py INPUT_URL OUTPUT_URL

Reads the text files under INPUT_URL twice, once through Hadoop's input formats (the RDD API: splits cut by the
adapter's block size, placed by its block locations) and once through Spark's own file source (DataFrames), and
writes the counts twice: as text lines "WORD<TAB>COUNT" to OUTPUT_URL/text (Hadoop's output committer) and as
Parquet to OUTPUT_URL/parquet (Spark's SQL committer), reading the Parquet back. Prints one "RESULT key=value" line
per figure for try-spark.sh to check; the counts themselves are checked there against ones computed without Spark.
"""

import sys

from pyspark.sql import SparkSession


def main(arguments):
    if len(arguments) != 2:
        sys.exit("usage: wordcount.py INPUT_URL OUTPUT_URL")
    input_url, output_url = arguments
    spark = SparkSession.builder.appName("xtreemfs-wordcount").getOrCreate()
    context = spark.sparkContext

    lines = context.textFile(input_url)
    counts = (lines.flatMap(lambda line: line.split())
              .map(lambda word: (word, 1))
              .reduceByKey(lambda left, right: left + right))
    counts.map(lambda pair: f"{pair[0]}\t{pair[1]}").saveAsTextFile(output_url + "/text")
    print(f"RESULT input_partitions={lines.getNumPartitions()}")

    line_count = spark.read.text(input_url).count()
    print(f"RESULT dataframe_lines={line_count}")

    spark.createDataFrame(counts, ["word", "count"]).write.parquet(output_url + "/parquet")
    parquet = spark.read.parquet(output_url + "/parquet")
    print(f"RESULT parquet_words={parquet.count()}")
    print(f"RESULT parquet_total={parquet.groupBy().sum('count').first()[0]}")
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1:])
