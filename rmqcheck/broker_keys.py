"""Every key a RocketMQ 4.4.0 broker reads from its ``broker.conf``.

``BrokerStartup#createBrokerController`` hands the file's properties to ``MixAll#properties2Object`` for
``BrokerConfig``, ``NettyServerConfig``, ``NettyClientConfig`` and ``MessageStoreConfig``: a key is read when
one of them has a setter of its name (``setBrokerRole`` reads ``brokerRole``). These are the setters of the
four classes at the rocketmq-all-4.4.0 tag (157 keys). Any other key RocketMQ ignores without a word.
"""
from __future__ import annotations

BROKER_KEYS: frozenset[str] = frozenset((
    "accessMessageInMemoryMaxRatio", "aclEnable", "adminBrokerThreadPoolNums", "autoCreateSubscriptionGroup",
    "autoCreateTopicEnable", "bitMapLengthConsumeQueueExt", "brokerClusterName", "brokerFastFailureEnable",
    "brokerIP1", "brokerIP2", "brokerId", "brokerName", "brokerPermission", "brokerRole", "brokerTopicEnable",
    "channelNotActiveInterval", "checkCRCOnRecover", "cleanFileForciblyEnable", "cleanResourceInterval",
    "clientAsyncSemaphoreValue", "clientCallbackExecutorThreads", "clientChannelMaxIdleTimeSeconds",
    "clientCloseSocketIfTimeout", "clientManageThreadPoolNums", "clientManagerThreadPoolQueueCapacity",
    "clientOnewaySemaphoreValue", "clientPooledByteBufAllocatorEnable", "clientSocketRcvBufSize",
    "clientSocketSndBufSize", "clientWorkerThreads", "clusterTopicEnable", "commercialBaseCount",
    "commercialBigCount", "commercialEnable", "commercialTimerCount", "commercialTransCount",
    "commitCommitLogLeastPages", "commitCommitLogThoroughInterval", "commitIntervalCommitLog",
    "compressedRegister", "connectTimeoutMillis", "consumerFallbehindThreshold", "consumerManageThreadPoolNums",
    "consumerManagerThreadPoolQueueCapacity", "debugLockEnable", "defaultQueryMaxNum", "defaultTopicQueueNums",
    "deleteCommitLogFilesInterval", "deleteConsumeQueueFilesInterval", "deleteWhen",
    "destroyMapedFileIntervalForcibly", "disableConsumeIfConsumerReadSlowly", "diskFallRecorded",
    "diskMaxUsedSpaceRatio", "duplicationEnable", "enableCalcFilterBitMap", "enableConsumeQueueExt",
    "enablePropertyFilter", "endTransactionPoolQueueCapacity", "endTransactionThreadPoolNums",
    "expectConsumerNumUseFilter", "fastFailIfNoBufferInStorePool", "fetchNamesrvAddrByAddressServer",
    "fileReservedTime", "filterDataCleanTimeSpan", "filterServerNums", "filterSupportRetry",
    "flushCommitLogLeastPages", "flushCommitLogThoroughInterval", "flushCommitLogTimed",
    "flushConsumeQueueLeastPages", "flushConsumeQueueThoroughInterval", "flushConsumerOffsetHistoryInterval",
    "flushConsumerOffsetInterval", "flushDelayOffsetInterval", "flushDiskType", "flushIntervalCommitLog",
    "flushIntervalConsumeQueue", "flushLeastPagesWhenWarmMapedFile", "forceRegister", "haHousekeepingInterval",
    "haListenPort", "haMasterAddress", "haSendHeartbeatInterval", "haSlaveFallbehindMax", "haTransferBatchSize",
    "heartbeatThreadPoolNums", "heartbeatThreadPoolQueueCapacity", "highSpeedMode", "listenPort",
    "longPollingEnable", "mapedFileSizeCommitLog", "mapedFileSizeConsumeQueue", "mappedFileSizeConsumeQueueExt",
    "maxDelayTime", "maxErrorRateOfBloomFilter", "maxHashSlotNum", "maxIndexNum", "maxMessageSize",
    "maxMsgsNumBatch", "maxTransferBytesOnMessageInDisk", "maxTransferBytesOnMessageInMemory",
    "maxTransferCountOnMessageInDisk", "maxTransferCountOnMessageInMemory", "messageDelayLevel",
    "messageIndexEnable", "messageIndexSafe", "messageStorePlugIn", "msgTraceTopicName", "namesrvAddr",
    "notifyConsumerIdsChangedEnable", "offsetCheckInSlave", "osPageCacheBusyTimeOutMills",
    "pullMessageThreadPoolNums", "pullThreadPoolQueueCapacity", "putMsgIndexHightWater",
    "queryMessageThreadPoolNums", "queryThreadPoolQueueCapacity", "redeleteHangedFileInterval", "regionId",
    "registerBrokerTimeoutMills", "registerNameServerPeriod", "rejectTransactionMessage", "rocketmqHome",
    "sendMessageThreadPoolNums", "sendThreadPoolQueueCapacity", "serverAsyncSemaphoreValue",
    "serverCallbackExecutorThreads", "serverChannelMaxIdleTimeSeconds", "serverOnewaySemaphoreValue",
    "serverPooledByteBufAllocatorEnable", "serverSelectorThreads", "serverSocketRcvBufSize",
    "serverSocketSndBufSize", "serverWorkerThreads", "shortPollingTimeMills", "slaveReadEnable",
    "startAcceptSendRequestTimeStamp", "storePathCommitLog", "storePathRootDir", "syncFlushTimeout", "traceOn",
    "traceTopicEnable", "transactionCheckInterval", "transactionCheckMax", "transactionTimeOut",
    "transferMsgByHeap", "transientStorePoolEnable", "transientStorePoolSize", "useEpollNativeSelector",
    "useReentrantLockWhenPutMessage", "useTLS", "waitTimeMillsInHeartbeatQueue", "waitTimeMillsInPullQueue",
    "waitTimeMillsInSendQueue", "waitTimeMillsInTransactionQueue", "warmMapedFileEnable",
))
