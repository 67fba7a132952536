$data << EOD
4096 0.5246 0.4244 0.3552 0.4085 0.4198 1.3478 34.7119 NaN 0.5647 0.4405 0.3314 0.4246 0.4396 1.4095 34.7119 NaN
8192 0.9841 0.8033 0.6752 0.7704 0.8037 2.6206 43.1158 NaN 1.1127 0.8671 0.6041 0.8236 0.8635 2.7001 44.5217 NaN
16384 1.8178 1.5542 1.3565 1.4815 1.5398 6.1640 52.6817 NaN 2.2605 1.8774 1.1234 1.7090 1.8718 6.3088 46.8114 NaN
32768 3.7287 3.1925 2.2109 2.4247 3.1900 10.6528 47.1482 NaN 4.3396 3.6037 1.6341 2.9179 3.5946 10.5228 41.2695 NaN
65536 6.9512 6.0031 3.0596 3.9522 5.9976 16.5370 42.5835 NaN 7.9679 6.6990 2.2120 4.6858 6.7334 16.3025 40.1815 NaN
131072 12.4747 10.8351 5.3560 5.8629 10.8261 23.2438 40.5545 NaN 13.9438 11.9690 2.7797 6.9505 11.9865 23.0436 39.5391 NaN
262144 20.1216 18.0155 6.9400 8.4505 18.0056 28.9918 39.7670 NaN 21.8690 19.5542 3.1087 9.2523 19.3393 28.7470 38.9169 NaN
524288 29.2522 26.4125 7.9685 9.9499 26.2959 30.8950 30.0814 NaN 30.3706 27.0140 3.4450 12.1091 26.2525 29.0191 21.7367 NaN
1048576 36.7896 33.1408 6.9936 8.1497 33.3824 17.5186 15.5062 NaN 37.2946 33.7380 3.4468 10.0633 33.7195 13.8954 12.6195 NaN
2097152 43.9820 40.4996 6.0965 8.8545 40.5945 12.4558 13.3242 NaN 43.9507 40.7784 4.2084 9.7147 41.0466 11.3698 11.8915 NaN
4194304 48.6516 46.1359 6.3987 9.3797 46.1806 12.3537 12.8477 NaN 48.7993 46.5584 4.4329 9.8853 46.5083 10.7426 11.1200 NaN
8388608 51.7518 50.0155 6.5234 9.6233 50.2345 12.3686 12.5640 NaN 51.4853 50.3149 4.6501 10.0254 50.1618 10.1331 9.8954 NaN
16777216 53.3164 52.3751 6.5536 8.1930 52.4508 12.2327 9.5141 NaN 53.4202 52.3281 5.0283 9.9557 52.4811 9.0799 7.4215 NaN
33554432 53.8691 52.7743 3.3418 5.3101 53.0291 6.2017 6.0798 NaN 53.4451 53.0021 4.3317 6.6278 53.0616 6.2148 5.9526 NaN
67108864 54.4400 53.6419 3.1160 5.2255 53.6407 5.8282 5.8124 NaN 53.9344 53.2771 4.0698 5.4723 53.2896 5.7817 5.8302 NaN
EOD
set terminal pngcairo size 1500,640 noenhanced
set output 'bandwidth.png'
set multiplot layout 1,2
set title 'read (card->GPU), bandwidth: emu:0,private, NVIDIA H200 GPU, link none'
set xrange [2925.71:9.39524e+07]
set xlabel 'transfer size (bytes)'
set ylabel 'GB/s (10^9 B/s) from the median'
set logscale x 2
set logscale y 10
set grid
set format x '%.0b %BB'
set key left top box opaque font ',9'
set key right bottom
plot $data using 1:2 with lines lw 3 dt 2 lc rgb '#000000' title 'cudaMemcpy pinned (ceiling)', \
     $data using 1:3 with linespoints lw 2 pt 7 lc rgb '#1f77b4' title 'GPU Direct', \
     $data using 1:4 with linespoints lw 2 pt 5 lc rgb '#d62728' title 'traditional, pageable', \
     $data using 1:5 with linespoints lw 2 pt 9 lc rgb '#ff7f0e' title 'traditional, pinned', \
     $data using 1:6 with linespoints lw 2 pt 11 lc rgb '#2ca02c' title 'TransferMode GPU_PINNED', \
     $data using 1:7 with linespoints lw 2 pt 13 lc rgb '#9467bd' title 'CPU mode DMA_MM', \
     $data using 1:8 with lines lw 2 dt 3 lc rgb '#7f7f7f' title 'host memcpy (CPU-mode ceiling)'
set title 'write (GPU->card), bandwidth: emu:0,private, NVIDIA H200 GPU, link none'
set xrange [2925.71:9.39524e+07]
set xlabel 'transfer size (bytes)'
set ylabel 'GB/s (10^9 B/s) from the median'
set logscale x 2
set logscale y 10
set grid
set format x '%.0b %BB'
set key left top box opaque font ',9'
set key right bottom
plot $data using 1:10 with lines lw 3 dt 2 lc rgb '#000000' title 'cudaMemcpy pinned (ceiling)', \
     $data using 1:11 with linespoints lw 2 pt 7 lc rgb '#1f77b4' title 'GPU Direct', \
     $data using 1:12 with linespoints lw 2 pt 5 lc rgb '#d62728' title 'traditional, pageable', \
     $data using 1:13 with linespoints lw 2 pt 9 lc rgb '#ff7f0e' title 'traditional, pinned', \
     $data using 1:14 with linespoints lw 2 pt 11 lc rgb '#2ca02c' title 'TransferMode GPU_PINNED', \
     $data using 1:15 with linespoints lw 2 pt 13 lc rgb '#9467bd' title 'CPU mode DMA_MM', \
     $data using 1:16 with lines lw 2 dt 3 lc rgb '#7f7f7f' title 'host memcpy (CPU-mode ceiling)'
unset multiplot
set output
set terminal svg size 1500,640 dynamic noenhanced
set output 'bandwidth.svg'
set multiplot layout 1,2
set title 'read (card->GPU), bandwidth: emu:0,private, NVIDIA H200 GPU, link none'
set xrange [2925.71:9.39524e+07]
set xlabel 'transfer size (bytes)'
set ylabel 'GB/s (10^9 B/s) from the median'
set logscale x 2
set logscale y 10
set grid
set format x '%.0b %BB'
set key left top box opaque font ',9'
set key right bottom
plot $data using 1:2 with lines lw 3 dt 2 lc rgb '#000000' title 'cudaMemcpy pinned (ceiling)', \
     $data using 1:3 with linespoints lw 2 pt 7 lc rgb '#1f77b4' title 'GPU Direct', \
     $data using 1:4 with linespoints lw 2 pt 5 lc rgb '#d62728' title 'traditional, pageable', \
     $data using 1:5 with linespoints lw 2 pt 9 lc rgb '#ff7f0e' title 'traditional, pinned', \
     $data using 1:6 with linespoints lw 2 pt 11 lc rgb '#2ca02c' title 'TransferMode GPU_PINNED', \
     $data using 1:7 with linespoints lw 2 pt 13 lc rgb '#9467bd' title 'CPU mode DMA_MM', \
     $data using 1:8 with lines lw 2 dt 3 lc rgb '#7f7f7f' title 'host memcpy (CPU-mode ceiling)'
set title 'write (GPU->card), bandwidth: emu:0,private, NVIDIA H200 GPU, link none'
set xrange [2925.71:9.39524e+07]
set xlabel 'transfer size (bytes)'
set ylabel 'GB/s (10^9 B/s) from the median'
set logscale x 2
set logscale y 10
set grid
set format x '%.0b %BB'
set key left top box opaque font ',9'
set key right bottom
plot $data using 1:10 with lines lw 3 dt 2 lc rgb '#000000' title 'cudaMemcpy pinned (ceiling)', \
     $data using 1:11 with linespoints lw 2 pt 7 lc rgb '#1f77b4' title 'GPU Direct', \
     $data using 1:12 with linespoints lw 2 pt 5 lc rgb '#d62728' title 'traditional, pageable', \
     $data using 1:13 with linespoints lw 2 pt 9 lc rgb '#ff7f0e' title 'traditional, pinned', \
     $data using 1:14 with linespoints lw 2 pt 11 lc rgb '#2ca02c' title 'TransferMode GPU_PINNED', \
     $data using 1:15 with linespoints lw 2 pt 13 lc rgb '#9467bd' title 'CPU mode DMA_MM', \
     $data using 1:16 with lines lw 2 dt 3 lc rgb '#7f7f7f' title 'host memcpy (CPU-mode ceiling)'
unset multiplot
set output
