$data << EOD
4096 0.5807 0.4730 0.4089 0.4554 0.4679 1.6151 41.7959 NaN 0.5893 0.4756 0.3724 0.4600 0.4709 1.6338 38.2804 NaN
8192 1.0897 0.8932 0.7721 0.8548 0.8958 3.0590 58.0993 NaN 1.1660 0.9403 0.6814 0.8941 0.9280 3.1399 52.1783 NaN
16384 1.8742 1.5755 1.3623 1.4915 1.5665 5.7008 55.1650 NaN 2.2899 1.8457 1.1394 1.7028 1.8413 5.8473 50.1040 NaN
32768 3.7904 3.1783 2.2505 2.4162 3.1712 9.9387 48.9806 NaN 4.3749 3.5567 1.6759 2.9024 3.5637 9.7379 39.9123 NaN
65536 6.9957 5.9427 3.0998 3.8763 5.9378 15.8760 43.5166 NaN 8.0462 6.6305 2.2725 4.7145 6.6717 15.5372 39.8880 NaN
131072 12.6347 10.7878 5.4625 5.8454 10.7825 22.5947 41.3216 NaN 14.1196 11.8865 2.8680 7.0731 11.9232 22.4285 40.1815 NaN
262144 20.2100 17.8354 7.0442 8.4478 17.8962 28.3430 39.8941 NaN 22.2401 19.4123 3.2318 9.2223 19.5178 28.1603 39.4024 NaN
524288 29.3686 26.2538 8.2526 10.1555 26.3461 32.4255 31.7770 NaN 30.8568 27.2131 3.5636 12.6965 26.8935 29.9115 23.7084 NaN
1048576 37.3411 33.4527 7.0979 8.2891 33.7793 17.6296 16.4653 NaN 38.4305 34.3514 3.6681 11.3491 34.0978 14.6200 14.4651 NaN
2097152 44.4378 40.7103 6.3250 8.9058 40.7040 12.6535 13.2307 NaN 44.8569 41.3183 4.3848 9.8762 41.1852 11.5404 12.4325 NaN
4194304 49.3401 46.4074 6.6715 9.6663 46.5739 12.8773 13.1622 NaN 48.9886 46.5858 4.6130 10.1414 46.9025 11.2430 12.0626 NaN
8388608 51.9014 50.2824 6.6977 9.8245 50.3872 12.5645 12.6920 NaN 51.9589 50.5886 4.7625 10.2569 50.5450 10.5721 11.6510 NaN
16777216 53.5112 52.4591 6.7972 9.7029 52.0909 12.7650 12.2239 NaN 53.5177 52.7368 4.8338 10.3778 52.7484 10.1405 10.2134 NaN
33554432 54.3518 53.7087 6.2910 7.7935 53.6362 12.1785 8.8070 NaN 54.0431 53.5887 5.5781 9.6302 53.7869 9.3684 7.2299 NaN
67108864 54.8088 54.3621 4.0007 6.2592 54.2162 7.1902 7.1243 NaN 54.5113 54.0073 4.7959 6.5326 53.9546 6.8903 6.8923 NaN
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
