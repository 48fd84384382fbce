-- MySQL dump 10.13
CREATE TABLE `t` (
  `id` int NOT NULL,
  `a` varchar(9) DEFAULT 'x',
  `b` blob,
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=latin1;
INSERT INTO `t` VALUES (1,'cafÃ©',_binary 'Ã©'),(2,"dq",0x41C3A9©',_binary 'Ã©'),(2,"dq",0x41C3A9);
