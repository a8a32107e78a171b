package org.xtreemfs.common.clients.hadoop;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.IntWritable;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapreduce.Job;
import org.apache.hadoop.mapreduce.InputSplit;
import org.apache.hadoop.mapreduce.lib.input.TextInputFormat;
import org.apache.hadoop.mapreduce.TaskCounter;
import org.apache.hadoop.mapreduce.lib.input.FileInputFormat;
import org.apache.hadoop.mapreduce.lib.map.TokenCounterMapper;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;
import org.apache.hadoop.mapreduce.lib.reduce.IntSumReducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real MapReduce job on XtreemFS: word count in Hadoop's local job runner, input read from and output written
 * to xtreemfs:// paths through the adapter (splits from its block locations, the output committer's renames), the
 * counts checked against the ones computed here.
 */
class WordCountJobTest {
    private static final String[] WORDS = {"osd", "mrc", "dir", "stripe", "object", "volume", "quality", "service"};

    @Test
    void wordCountReadsAndWritesAnXtreemfsVolume(@TempDir java.nio.file.Path local) throws Exception {
        SharedCluster cluster = SharedCluster.get();
        Configuration conf = cluster.configuration();
        // Blocks of two objects, so each input file gives the job several splits.
        conf.set(XtreemFSOptions.BLOCK_SIZE, String.valueOf(2 * SharedCluster.OBJECT_SIZE_BYTES));
        conf.setBoolean("fs.xtreemfs.impl.disable.cache", true);
        conf.set("mapreduce.framework.name", "local");
        // The local job runner keeps its own files (staging, spills) on the local disk.
        conf.set("hadoop.tmp.dir", local.resolve("hadoop-tmp").toString());
        conf.set("mapreduce.jobtracker.staging.root.dir", local.resolve("staging").toString());
        Path base = new Path(cluster.fileSystemUri() + "/" + SharedCluster.VOLUME + "/wordcount");
        Path input = new Path(base, "in");
        Path output = new Path(base, "out");
        Map<String, Integer> expected = new HashMap<>();
        try (FileSystem fs = FileSystem.newInstance(URI.create(cluster.fileSystemUri()), conf)) {
            fs.delete(base, true);
            Random random = new Random(11);
            for (int file = 0; file < 3; file++) {
                try (FSDataOutputStream out = fs.create(new Path(input, "part-" + file + ".txt"))) {
                    StringBuilder text = new StringBuilder();
                    for (int line = 0; line < 6_000; line++) {
                        for (int word = 0; word < 8; word++) {
                            String chosen = WORDS[random.nextInt(WORDS.length)];
                            expected.merge(chosen, 1, Integer::sum);
                            text.append(chosen).append(word == 7 ? '\n' : ' ');
                        }
                    }
                    out.write(text.toString().getBytes(StandardCharsets.UTF_8));
                }
            }

            Job job = Job.getInstance(conf, "xtreemfs word count");
            job.setMapperClass(TokenCounterMapper.class);
            job.setCombinerClass(IntSumReducer.class);
            job.setReducerClass(IntSumReducer.class);
            job.setOutputKeyClass(Text.class);
            job.setOutputValueClass(IntWritable.class);
            FileInputFormat.addInputPath(job, input);
            FileOutputFormat.setOutputPath(job, output);
            // About 300 KB per file in blocks of 128 KiB: the splits follow the adapter's blocks, each placed on the
            // host of the OSDs holding it.
            List<InputSplit> splits = new TextInputFormat().getSplits(job);
            assertThat(splits).hasSizeGreaterThan(3);
            for (InputSplit split : splits) {
                assertThat(split.getLocations()).containsExactly("127.0.0.1");
            }
            assertThat(job.waitForCompletion(false)).as("the job succeeded").isTrue();
            assertThat(job.getCounters().findCounter(TaskCounter.MAP_INPUT_RECORDS).getValue()).isEqualTo(3 * 6_000);


            assertThat(fs.exists(new Path(output, "_SUCCESS"))).isTrue();
            Map<String, Integer> counted = new HashMap<>();
            for (FileStatus part : fs.listStatus(output, path -> path.getName().startsWith("part-r-"))) {
                try (BufferedReader reader = new BufferedReader(new InputStreamReader(fs.open(part.getPath()),
                        StandardCharsets.UTF_8))) {
                    for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                        String[] fields = line.split("\t");
                        counted.put(fields[0], Integer.parseInt(fields[1]));
                    }
                }
            }
            assertThat(counted).isEqualTo(expected);
            fs.delete(base, true);
        }
        assertThat(Files.exists(local)).isTrue();
    }
}
