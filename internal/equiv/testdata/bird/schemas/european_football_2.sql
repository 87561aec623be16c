CREATE TABLE Player_Attributes
(
    id INTEGER
        primary key,
    player_fifa_api_id INTEGER,
    player_api_id INTEGER,
    date TEXT,
    overall_rating INTEGER,
    potential INTEGER,
    preferred_foot TEXT,
    attacking_work_rate TEXT,
    defensive_work_rate TEXT,
    crossing INTEGER,
    finishing INTEGER,
    heading_accuracy INTEGER,
    short_passing INTEGER,
    volleys INTEGER,
    dribbling INTEGER,
    curve INTEGER,
    free_kick_accuracy INTEGER,
    long_passing INTEGER,
    ball_control INTEGER,
    acceleration INTEGER,
    sprint_speed INTEGER,
    agility INTEGER,
    reactions INTEGER,
    balance INTEGER,
    shot_power INTEGER,
    jumping INTEGER,
    stamina INTEGER,
    strength INTEGER,
    long_shots INTEGER,
    aggression INTEGER,
    interceptions INTEGER,
    positioning INTEGER,
    vision INTEGER,
    penalties INTEGER,
    marking INTEGER,
    standing_tackle INTEGER,
    sliding_tackle INTEGER,
    gk_diving INTEGER,
    gk_handling INTEGER,
    gk_kicking INTEGER,
    gk_positioning INTEGER,
    gk_reflexes INTEGER,
    foreign key (player_api_id) references Player (player_api_id)
    foreign key (player_fifa_api_id) references Player (player_fifa_api_id)
);

CREATE TABLE Player
(
    id INTEGER
        primary key,
    player_api_id INTEGER,
    player_name TEXT,
    player_fifa_api_id INTEGER,
    birthday TEXT,
    height INTEGER,
    weight INTEGER
);

CREATE TABLE League
(
    id INTEGER
        primary key,
    country_id INTEGER,
    name TEXT,
    foreign key (country_id) references Country (id)
);

CREATE TABLE Country
(
    id INTEGER
        primary key,
    name TEXT
);

CREATE TABLE Team
(
    id INTEGER
        primary key,
    team_api_id INTEGER,
    team_fifa_api_id INTEGER,
    team_long_name TEXT,
    team_short_name TEXT
);

CREATE TABLE Team_Attributes
(
    id INTEGER
        primary key,
    team_fifa_api_id INTEGER,
    team_api_id INTEGER,
    date TEXT,
    buildUpPlaySpeed INTEGER,
    buildUpPlaySpeedClass TEXT,
    buildUpPlayDribbling INTEGER,
    buildUpPlayDribblingClass TEXT,
    buildUpPlayPassing INTEGER,
    buildUpPlayPassingClass TEXT,
    buildUpPlayPositioningClass TEXT,
    chanceCreationPassing INTEGER,
    chanceCreationPassingClass TEXT,
    chanceCreationCrossing INTEGER,
    chanceCreationCrossingClass TEXT,
    chanceCreationShooting INTEGER,
    chanceCreationShootingClass TEXT,
    chanceCreationPositioningClass TEXT,
    defencePressure INTEGER,
    defencePressureClass TEXT,
    defenceAggression INTEGER,
    defenceAggressionClass TEXT,
    defenceTeamWidth INTEGER,
    defenceTeamWidthClass TEXT,
    defenceDefenderLineClass TEXT,
    foreign key (team_api_id) references Team (team_api_id)
    foreign key (team_fifa_api_id) references Team (team_fifa_api_id)
);

CREATE TABLE `Match`
(
    id INTEGER
        primary key,
    country_id INTEGER,
    league_id INTEGER,
    season TEXT,
    stage INTEGER,
    date TEXT,
    match_api_id INTEGER,
    home_team_api_id INTEGER,
    away_team_api_id INTEGER,
    home_team_goal INTEGER,
    away_team_goal INTEGER,
    home_player_X1 INTEGER,
    home_player_X2 INTEGER,
    home_player_X3 INTEGER,
    home_player_X4 INTEGER,
    home_player_X5 INTEGER,
    home_player_X6 INTEGER,
    home_player_X7 INTEGER,
    home_player_X8 INTEGER,
    home_player_X9 INTEGER,
    home_player_X10 INTEGER,
    home_player_X11 INTEGER,
    away_player_X1 INTEGER,
    away_player_X2 INTEGER,
    away_player_X3 INTEGER,
    away_player_X4 INTEGER,
    away_player_X5 INTEGER,
    away_player_X6 INTEGER,
    away_player_X7 INTEGER,
    away_player_X8 INTEGER,
    away_player_X9 INTEGER,
    away_player_X10 INTEGER,
    away_player_X11 INTEGER,
    home_player_Y1 INTEGER,
    home_player_Y2 INTEGER,
    home_player_Y3 INTEGER,
    home_player_Y4 INTEGER,
    home_player_Y5 INTEGER,
    home_player_Y6 INTEGER,
    home_player_Y7 INTEGER,
    home_player_Y8 INTEGER,
    home_player_Y9 INTEGER,
    home_player_Y10 INTEGER,
    home_player_Y11 INTEGER,
    away_player_Y1 INTEGER,
    away_player_Y2 INTEGER,
    away_player_Y3 INTEGER,
    away_player_Y4 INTEGER,
    away_player_Y5 INTEGER,
    away_player_Y6 INTEGER,
    away_player_Y7 INTEGER,
    away_player_Y8 INTEGER,
    away_player_Y9 INTEGER,
    away_player_Y10 INTEGER,
    away_player_Y11 INTEGER,
    home_player_1 INTEGER,
    home_player_2 INTEGER,
    home_player_3 INTEGER,
    home_player_4 INTEGER,
    home_player_5 INTEGER,
    home_player_6 INTEGER,
    home_player_7 INTEGER,
    home_player_8 INTEGER,
    home_player_9 INTEGER,
    home_player_10 INTEGER,
    home_player_11 INTEGER,
    away_player_1 INTEGER,
    away_player_2 INTEGER,
    away_player_3 INTEGER,
    away_player_4 INTEGER,
    away_player_5 INTEGER,
    away_player_6 INTEGER,
    away_player_7 INTEGER,
    away_player_8 INTEGER,
    away_player_9 INTEGER,
    away_player_10 INTEGER,
    away_player_11 INTEGER,
    goal TEXT,
    shoton TEXT,
    shotoff TEXT,
    foulcommit TEXT,
    card TEXT,
    `cross` TEXT,
    corner TEXT,
    possession TEXT,
    B365H REAL,
    B365D REAL,
    B365A REAL,
    BWH REAL,
    BWD REAL,
    BWA REAL,
    IWH REAL,
    IWD REAL,
    IWA REAL,
    LBH REAL,
    LBD REAL,
    LBA REAL,
    PSH REAL,
    PSD REAL,
    PSA REAL,
    WHH REAL,
    WHD REAL,
    WHA REAL,
    SJH REAL,
    SJD REAL,
    SJA REAL,
    VCH REAL,
    VCD REAL,
    VCA REAL,
    GBH REAL,
    GBD REAL,
    GBA REAL,
    BSH REAL,
    BSD REAL,
    BSA REAL,
    foreign key (away_player_11) references Player (player_api_id)
    foreign key (away_player_10) references Player (player_api_id)
    foreign key (away_player_9) references Player (player_api_id)
    foreign key (away_player_8) references Player (player_api_id)
    foreign key (away_player_7) references Player (player_api_id)
    foreign key (away_player_6) references Player (player_api_id)
    foreign key (away_player_5) references Player (player_api_id)
    foreign key (away_player_4) references Player (player_api_id)
    foreign key (away_player_3) references Player (player_api_id)
    foreign key (away_player_2) references Player (player_api_id)
    foreign key (away_player_1) references Player (player_api_id)
    foreign key (home_player_11) references Player (player_api_id)
    foreign key (home_player_10) references Player (player_api_id)
    foreign key (home_player_9) references Player (player_api_id)
    foreign key (home_player_8) references Player (player_api_id)
    foreign key (home_player_7) references Player (player_api_id)
    foreign key (home_player_6) references Player (player_api_id)
    foreign key (home_player_5) references Player (player_api_id)
    foreign key (home_player_4) references Player (player_api_id)
    foreign key (home_player_3) references Player (player_api_id)
    foreign key (home_player_2) references Player (player_api_id)
    foreign key (home_player_1) references Player (player_api_id)
    foreign key (away_team_api_id) references Team (team_api_id)
    foreign key (home_team_api_id) references Team (team_api_id)
);
