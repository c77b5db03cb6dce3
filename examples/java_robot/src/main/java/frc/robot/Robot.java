// The drivetrain robot of examples/drivetrain_robot in Java: two motors a side on PWM 0 and 1, encoders on
// DIO 0/1 and 2/3, an ADXRS450 gyro. simcore.halsim is its physics (see README.md).
package frc.robot;

import edu.wpi.first.math.kinematics.DifferentialDriveOdometry;
import edu.wpi.first.wpilibj.ADXRS450_Gyro;
import edu.wpi.first.wpilibj.Encoder;
import edu.wpi.first.wpilibj.TimedRobot;
import edu.wpi.first.wpilibj.Timer;
import edu.wpi.first.wpilibj.drive.DifferentialDrive;
import edu.wpi.first.wpilibj.motorcontrol.PWMSparkMax;

public class Robot extends TimedRobot {
  static final double WHEEL_RADIUS = 0.0762; // m
  static final int COUNTS_PER_REV = 2048;

  private final PWMSparkMax left = new PWMSparkMax(0);
  private final PWMSparkMax right = new PWMSparkMax(1);
  private final DifferentialDrive drive;
  private final Encoder leftEncoder = new Encoder(0, 1);
  private final Encoder rightEncoder = new Encoder(2, 3);
  private final ADXRS450_Gyro gyro = new ADXRS450_Gyro();
  private final DifferentialDriveOdometry odometry;
  private final Timer timer = new Timer();

  public Robot() {
    right.setInverted(true);
    drive = new DifferentialDrive(left, right);
    for (Encoder e : new Encoder[] {leftEncoder, rightEncoder}) {
      e.setDistancePerPulse(2 * Math.PI * WHEEL_RADIUS / COUNTS_PER_REV); // m of wheel rim per pulse
    }
    odometry = new DifferentialDriveOdometry(gyro.getRotation2d(), 0.0, 0.0);
  }

  @Override
  public void robotPeriodic() {
    odometry.update(gyro.getRotation2d(), leftEncoder.getDistance(), rightEncoder.getDistance());
  }

  @Override
  public void autonomousInit() {
    timer.restart();
  }

  @Override
  public void autonomousPeriodic() {
    if (timer.get() < 1.0) {
      drive.arcadeDrive(0.5, 0.1, false);
    } else {
      drive.stopMotor();
    }
  }
}
