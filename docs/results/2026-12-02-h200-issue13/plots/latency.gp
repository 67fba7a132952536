$data << EOD
4096 7.0540 8.6590 10.0170 8.9950 8.7540 2.5360 0.0980 NaN 6.9510 8.6130 10.9990 8.9040 8.6980 2.5070 0.1070 NaN
8192 7.5180 9.1720 10.6100 9.5840 9.1450 2.6780 0.1410 NaN 7.0260 8.7120 12.0230 9.1620 8.8280 2.6090 0.1570 NaN
16384 8.7420 10.3990 12.0270 10.9850 10.4590 2.8740 0.2970 NaN 7.1550 8.8770 14.3800 9.6220 8.8980 2.8020 0.3270 NaN
32768 8.6450 10.3100 14.5600 13.5620 10.3330 3.2970 0.6690 NaN 7.4900 9.2130 19.5520 11.2900 9.1950 3.3650 0.8210 NaN
65536 9.3680 11.0280 21.1420 16.9070 11.0370 4.1280 1.5060 NaN 8.1450 9.8840 28.8390 13.9010 9.8230 4.2180 1.6430 NaN
131072 10.3740 12.1500 23.9950 22.4230 12.1560 5.8010 3.1720 NaN 9.2830 11.0270 45.7020 18.5310 10.9930 5.8440 3.2620 NaN
262144 12.9710 14.6980 37.2140 31.0310 14.6480 9.2490 6.5710 NaN 11.7870 13.5040 81.1150 28.4250 13.4310 9.3090 6.6530 NaN
524288 17.8520 19.9700 63.5300 51.6260 19.9000 16.1690 16.4990 NaN 16.9910 19.2660 147.1240 41.2940 19.4950 17.5280 22.1140 NaN
1048576 28.0810 31.3450 147.7300 126.5010 31.0420 59.4780 63.6840 NaN 27.2850 30.5250 285.8630 92.3930 30.7520 71.7220 72.4900 NaN
2097152 47.1930 51.5140 331.5670 235.4810 51.5220 165.7370 158.5070 NaN 46.7520 50.7560 478.2740 212.3430 50.9200 181.7220 168.6830 NaN
4194304 85.0080 90.3800 628.6940 433.9090 90.0570 325.7130 318.6630 NaN 85.6180 90.0340 909.2440 413.5810 89.4260 373.0600 347.7110 NaN
8388608 161.6260 166.8300 1252.4620 853.8420 166.4830 667.6440 660.9390 NaN 161.4470 165.8200 1761.3800 817.8530 165.9630 793.4660 719.9920 NaN
16777216 313.5270 319.8150 2468.2510 1729.1000 322.0760 1314.3150 1372.4880 NaN 313.4890 318.1310 3470.8120 1616.6400 318.0610 1654.4760 1642.6690 NaN
33554432 617.3560 624.7480 5333.7580 4305.4530 625.5930 2755.2250 3809.9850 NaN 620.8830 626.1480 6015.3860 3484.3030 623.8400 3581.6650 4641.0650 NaN
67108864 1224.4180 1234.4790 16774.4080 10721.6460 1237.8010 9333.4280 9419.6620 NaN 1231.0990 1242.5880 13993.0080 10272.8680 1243.8020 9739.6830 9736.7630 NaN
EOD
set terminal pngcairo size 1500,640 noenhanced
set output 'latency.png'
set multiplot layout 1,2
set title 'read (card->GPU), median latency: emu:0,private, NVIDIA H200 GPU, link none'
set xrange [2925.71:9.39524e+07]
set xlabel 'transfer size (bytes)'
set ylabel 'median time per transfer (us)'
set logscale x 2
set logscale y 10
set grid
set format x '%.0b %BB'
set key left top box opaque font ',9'
plot $data using 1:2 with lines lw 3 dt 2 lc rgb '#000000' title 'cudaMemcpy pinned (ceiling)', \
     $data using 1:3 with linespoints lw 2 pt 7 lc rgb '#1f77b4' title 'GPU Direct', \
     $data using 1:4 with linespoints lw 2 pt 5 lc rgb '#d62728' title 'traditional, pageable', \
     $data using 1:5 with linespoints lw 2 pt 9 lc rgb '#ff7f0e' title 'traditional, pinned', \
     $data using 1:6 with linespoints lw 2 pt 11 lc rgb '#2ca02c' title 'TransferMode GPU_PINNED', \
     $data using 1:7 with linespoints lw 2 pt 13 lc rgb '#9467bd' title 'CPU mode DMA_MM', \
     $data using 1:8 with lines lw 2 dt 3 lc rgb '#7f7f7f' title 'host memcpy (CPU-mode ceiling)'
set title 'write (GPU->card), median latency: emu:0,private, NVIDIA H200 GPU, link none'
set xrange [2925.71:9.39524e+07]
set xlabel 'transfer size (bytes)'
set ylabel 'median time per transfer (us)'
set logscale x 2
set logscale y 10
set grid
set format x '%.0b %BB'
set key left top box opaque font ',9'
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
set output 'latency.svg'
set multiplot layout 1,2
set title 'read (card->GPU), median latency: emu:0,private, NVIDIA H200 GPU, link none'
set xrange [2925.71:9.39524e+07]
set xlabel 'transfer size (bytes)'
set ylabel 'median time per transfer (us)'
set logscale x 2
set logscale y 10
set grid
set format x '%.0b %BB'
set key left top box opaque font ',9'
plot $data using 1:2 with lines lw 3 dt 2 lc rgb '#000000' title 'cudaMemcpy pinned (ceiling)', \
     $data using 1:3 with linespoints lw 2 pt 7 lc rgb '#1f77b4' title 'GPU Direct', \
     $data using 1:4 with linespoints lw 2 pt 5 lc rgb '#d62728' title 'traditional, pageable', \
     $data using 1:5 with linespoints lw 2 pt 9 lc rgb '#ff7f0e' title 'traditional, pinned', \
     $data using 1:6 with linespoints lw 2 pt 11 lc rgb '#2ca02c' title 'TransferMode GPU_PINNED', \
     $data using 1:7 with linespoints lw 2 pt 13 lc rgb '#9467bd' title 'CPU mode DMA_MM', \
     $data using 1:8 with lines lw 2 dt 3 lc rgb '#7f7f7f' title 'host memcpy (CPU-mode ceiling)'
set title 'write (GPU->card), median latency: emu:0,private, NVIDIA H200 GPU, link none'
set xrange [2925.71:9.39524e+07]
set xlabel 'transfer size (bytes)'
set ylabel 'median time per transfer (us)'
set logscale x 2
set logscale y 10
set grid
set format x '%.0b %BB'
set key left top box opaque font ',9'
plot $data using 1:10 with lines lw 3 dt 2 lc rgb '#000000' title 'cudaMemcpy pinned (ceiling)', \
     $data using 1:11 with linespoints lw 2 pt 7 lc rgb '#1f77b4' title 'GPU Direct', \
     $data using 1:12 with linespoints lw 2 pt 5 lc rgb '#d62728' title 'traditional, pageable', \
     $data using 1:13 with linespoints lw 2 pt 9 lc rgb '#ff7f0e' title 'traditional, pinned', \
     $data using 1:14 with linespoints lw 2 pt 11 lc rgb '#2ca02c' title 'TransferMode GPU_PINNED', \
     $data using 1:15 with linespoints lw 2 pt 13 lc rgb '#9467bd' title 'CPU mode DMA_MM', \
     $data using 1:16 with lines lw 2 dt 3 lc rgb '#7f7f7f' title 'host memcpy (CPU-mode ceiling)'
unset multiplot
set output
